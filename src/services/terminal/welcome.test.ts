import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { WELCOME_TEXT, createWelcome } from './welcome';

function setup(storage = memoryStorage()) {
  const loggedIn = signal(false);
  const ran: string[] = [];
  const welcome = createWelcome({ storage, loggedIn, execute: async (l) => void ran.push(l) });
  return { welcome, loggedIn, ran, storage };
}

describe('the first visit welcome', () => {
  it('offers three lines to run and says what logging in unlocks', async () => {
    const t = setup();
    expect(t.welcome.visible.value).toBe(true);
    expect(WELCOME_TEXT.tries.map((x) => x.line)).toEqual(['feed --min 70', 'price btc', 'help']);
    expect(WELCOME_TEXT.unlocks).toMatch(/^Log in to trade/);
    await t.welcome.run('price btc');
    expect(t.ran).toEqual(['price btc']);
    expect(t.welcome.visible.value).toBe(true);
  });

  it('goes away once dismissed, and stays away on the next visit', () => {
    const t = setup();
    t.welcome.dismiss();
    expect(t.welcome.visible.value).toBe(false);
    expect(setup(t.storage).welcome.visible.value).toBe(false);
  });

  it('is not shown while logged in', () => {
    const t = setup();
    t.loggedIn.value = true;
    expect(t.welcome.visible.value).toBe(false);
    t.loggedIn.value = false;
    expect(t.welcome.visible.value).toBe(true);
  });
});
