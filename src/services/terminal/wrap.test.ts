import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { createTerminalStore } from '../stores/terminal';
import { createVirtualScreen } from '../testing/screen';
import { info, styled, type OutputLine } from './output';
import type { Prompt } from './render';
import { createTerminalSession } from './session';
import { padWrap, wrapLine, wrapPoints } from './wrap';

const QUESTION = 'ETH long 30,000 USDT is above your fat-finger limit of 25,000 USDT. Place it? [y/N] ';

describe('wrapping on word boundaries', () => {
  it('breaks at the last space that fits, and leaves a word longer than a row to the terminal', () => {
    const text = 'Order placed for ETH long thirty thousand';
    const wrapped = wrapLine(info(text), 12).text.split('\n');
    expect(wrapped).toEqual(['Order placed', 'for ETH long', 'thirty', 'thousand']);
    for (const row of wrapped) expect(row.length).toBeLessThanOrEqual(12);
    expect(wrapPoints('abcdefghijklmnop qr', 8)).toEqual([16]);
    expect(wrapPoints('short', 80)).toEqual([]);
    expect(wrapPoints('two\nlines here', 6)).toEqual([9]);
    expect(padWrap('one two three', 6)).toBe('one   two   three');
    expect(padWrap('one two three', 8)).toBe('one two three');
  });

  it('keeps colours and links in their segments', () => {
    const line = styled([
      { text: 'Long ' },
      { text: 'ETH/USDT filled', style: 'long' },
      { text: ' at 3,000' },
    ]);
    const wrapped = wrapLine(line, 16);
    expect(wrapped.segments?.map((s) => s.text)).toEqual(['Long ', 'ETH/USDT\nfilled', ' at 3,000']);
    expect(wrapped.segments?.[1]?.style).toBe('long');
  });
});

describe('the terminal at a narrow width', () => {
  function setup(columns: number) {
    const terminal = createTerminalStore();
    const prompt = signal<Prompt>({ user: 'guest', symbol: 'ETH/USDT' });
    const session = createTerminalSession({
      commands: {
        runLine: async (line): Promise<OutputLine[]> => {
          if (line !== 'order') return [info(`ran ${line} with a longer answer than one row holds`)];
          const yes = await terminal.ask({ label: QUESTION, secret: false });
          return [info(yes === 'y' ? 'placed' : 'not placed')];
        },
        complete: () => ({ from: 0, candidates: [] }),
      },
      terminal,
      prompt,
    });
    const screen = createVirtualScreen(columns);
    session.attach(screen);
    return { session, screen, terminal };
  }

  it('draws a question that wraps once, however many keys are typed into it', async () => {
    const t = setup(40);
    await t.session.input('order\r');
    await t.session.input('n');
    await t.session.input('\x7fy');
    const shown = t.screen.rows();
    expect(shown.join('\n').split('fat-finger')).toHaveLength(2);
    // Each row ends on a word boundary.
    expect(shown.slice(1)).toEqual([
      'ETH long 30,000 USDT is above your',
      'fat-finger limit of 25,000 USDT. Place',
      'it? [y/N] y',
    ]);
    await t.session.input('\r');
    const after = t.screen.rows();
    expect(after.join('\n').split('fat-finger')).toHaveLength(2);
    expect(after).toContain('placed');
    expect(after.at(-1)).toBe('guest@ETH/USDT ›');
  });

  it('keeps a long typed line on its rows, with the cursor where the editor has it', async () => {
    const t = setup(30);
    const line = 'alias b="btc long 5k" and more words';
    await t.session.input(line);
    await t.session.input('\x1b[D'.repeat(10));
    const rows = t.screen.rows();
    expect(rows.map((row) => row.padEnd(30)).join('')).toBe(`guest@ETH/USDT › ${line}`.padEnd(60));
    const offset = 'guest@ETH/USDT › '.length + line.length - 10;
    expect(t.screen.cursor()).toEqual({ row: Math.floor(offset / 30), col: offset % 30 });
  });

  it('wraps output on word boundaries, and again after a resize', async () => {
    const t = setup(24);
    await t.session.input('hello\r');
    const rows = t.screen.rows();
    expect(rows).toContain('ran hello with a longer');
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(24);

    const wide = createVirtualScreen(80);
    const detach = t.session.attach(wide);
    t.session.refresh();
    detach();
    const narrowest = t.screen.rows();
    expect(narrowest.join('\n').split('ran hello')).toHaveLength(2);
  });
});
