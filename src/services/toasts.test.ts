import { describe, expect, it } from 'vitest';
import { createToasts, MAX_SHOWN, MAX_STICKY, RECENT_KEPT, TOAST_MS } from './toasts';

/** A clock whose timers run only when told. */
function fakeTimers() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    setTimer(fn: () => void, ms: number) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => void (timers = timers.filter((t) => t !== timer));
    },
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
    pending: () => timers.length,
  };
}

describe('toasts', () => {
  it('shows a toast until its time is up, a quiet one sooner', () => {
    const clock = fakeTimers();
    const toasts = createToasts(clock.setTimer);
    toasts.push('rule fired', 'event');
    toasts.push('rule held back', 'quiet');
    expect(toasts.shown.value.map((t) => t.text)).toEqual(['rule fired', 'rule held back']);
    clock.advance(TOAST_MS.quiet);
    expect(toasts.shown.value.map((t) => t.text)).toEqual(['rule fired']);
    clock.advance(TOAST_MS.event - TOAST_MS.quiet);
    expect(toasts.shown.value).toEqual([]);
  });

  it('keeps the newest few, and leaves no timer after a dismiss or dispose', () => {
    const clock = fakeTimers();
    const toasts = createToasts(clock.setTimer);
    for (let i = 1; i <= MAX_SHOWN + 2; i++) toasts.push(`n${i}`, 'event');
    expect(toasts.shown.value.map((t) => t.text)).toEqual(['n3', 'n4', 'n5', 'n6']);
    expect(clock.pending()).toBe(MAX_SHOWN);
    toasts.dismiss(toasts.shown.value[0]!.id);
    expect(clock.pending()).toBe(MAX_SHOWN - 1);
    toasts.dispose();
    expect(toasts.shown.value).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('keeps a sticky toast until it is dismissed or acted on, beside the others; its action runs once', async () => {
    const clock = fakeTimers();
    const toasts = createToasts(clock.setTimer);
    const ran: string[] = [];
    toasts.push('Disputed by X: story. Nothing was closed.', 'event', {
      sticky: true,
      action: { label: 'Close SOL', run: async () => void ran.push('close sol') },
    });
    for (let i = 1; i <= MAX_SHOWN + 1; i++) toasts.push(`n${i}`, 'event');
    clock.advance(60 * 60_000);
    expect(toasts.shown.value.map((t) => [t.text, t.sticky])).toEqual([
      ['Disputed by X: story. Nothing was closed.', true],
    ]);
    expect(clock.pending()).toBe(0);
    const id = toasts.shown.value[0]!.id;
    await Promise.all([toasts.act(id), toasts.act(id)]);
    expect(ran).toEqual(['close sol']);
    expect(toasts.shown.value).toEqual([]);
    for (let i = 1; i <= MAX_STICKY + 1; i++) toasts.push(`s${i}`, 'event', { sticky: true });
    expect(toasts.shown.value.map((t) => t.text)).toEqual(
      Array.from({ length: MAX_STICKY }, (_, i) => `s${i + 2}`),
    );
  });

  it('keeps fills, refusals and rule events in the Recent list once gone, newest first, with the time', () => {
    const clock = fakeTimers();
    let at = 1_000;
    const toasts = createToasts(clock.setTimer, () => at);
    toasts.push('Successfully placed LONG order for BTC/USDT with 100 USDT.', 'success');
    at = 2_000;
    toasts.push('rule held back', 'quiet');
    toasts.push('Error: Insufficient balance.', 'error');
    clock.advance(TOAST_MS.error);
    expect(toasts.shown.value).toEqual([]);
    expect(toasts.recent.value.map((t) => [t.text, t.tone, t.at])).toEqual([
      ['Error: Insufficient balance.', 'error', 2_000],
      ['Successfully placed LONG order for BTC/USDT with 100 USDT.', 'success', 1_000],
    ]);
    expect(toasts.unread.value).toBe(2);
    toasts.markRead();
    expect(toasts.unread.value).toBe(0);
    for (let i = 0; i < RECENT_KEPT + 5; i += 1) toasts.push(`fill ${i}`, 'success');
    expect(toasts.recent.value).toHaveLength(RECENT_KEPT);
    expect(toasts.recent.value[0]?.text).toBe(`fill ${RECENT_KEPT + 4}`);
  });
});
