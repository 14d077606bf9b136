import { describe, expect, it } from 'vitest';
import { createConfirmations } from './confirmations';

describe('in-app confirmations', () => {
  it('shows one question at a time, in order, and resolves each with its answer', async () => {
    const c = createConfirmations();
    const first = c.confirm('Close BTC?', { title: 'Close BTC/USDT', details: ['LONG 0.010 BTC'] });
    const second = c.confirm('Delete the key?');
    expect(c.current.value).toEqual({
      id: 1,
      kind: 'confirm',
      message: 'Close BTC?',
      title: 'Close BTC/USDT',
      details: ['LONG 0.010 BTC'],
      confirmLabel: 'OK',
      enterConfirms: false,
    });
    c.answer(true);
    expect(c.current.value?.message).toBe('Delete the key?');
    expect(c.current.value?.title).toBe('Please confirm');
    c.answer(false);
    expect(c.current.value).toBeNull();
    expect(await first).toBe(true);
    expect(await second).toBe(false);
  });

  it('shows an alert until it is acknowledged, and ignores answers with nothing open', () => {
    const c = createConfirmations();
    c.answer(true);
    c.alert('There are no open positions to close.');
    expect(c.current.value).toMatchObject({ kind: 'alert', title: 'Notice', confirmLabel: 'OK' });
    c.answer(true);
    expect(c.current.value).toBeNull();
  });

  it('starts on the yes button only for a question that asks for it', () => {
    const c = createConfirmations();
    void c.confirm('Move stop to 94,120.00 (\u22122.1 %)?', { enterConfirms: true });
    expect(c.current.value?.enterConfirms).toBe(true);
  });
});
