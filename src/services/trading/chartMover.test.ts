import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import type { PositionProtection } from '../../contracts/protection';
import { failure, info, success, type OutputLine } from '../terminal/output';
import { positionChart } from './chartLines';
import { createChartMover } from './chartMover';
import type { DialogDetails } from './dialogs';
import { BTC_LONG } from './testing/fixtures';

const guarded: PositionProtection = {
  stop_loss: { price: 94_000, on: 'exchange', state: 'resting' },
  take_profit: { price: 101_000, on: 'exchange', state: 'resting' },
  trailing: null,
  exit_at: null,
};

function setup(answer: boolean, output: OutputLine[]) {
  const asked: { message: string; more?: DialogDetails }[] = [];
  const ran: string[] = [];
  let finish: (() => void) | null = null;
  const position = signal(positionChart({ ...BTC_LONG, protection: guarded }));
  const mover = createChartMover({
    position,
    precision: () => 2,
    dialogs: {
      confirm: (message, more) => {
        asked.push({ message, more });
        return answer;
      },
      alert: () => undefined,
    },
    execute: (line) => {
      ran.push(line);
      return new Promise((resolve) => (finish = () => resolve(output)));
    },
    now: () => 0,
  });
  return { mover, asked, ran, position, answer: () => finish?.() };
}

describe('moving a stop by dragging its line', () => {
  it('follows the pointer, asks, and runs the terminal command; the ghost stays until the answer', async () => {
    const s = setup(true, [success('Stop loss 94,120.4600: resting on the paper exchange.')]);
    expect(s.mover.start('sl')).toBe(true);
    expect(s.mover.ghost.value?.text).toBe('SL 94,000.00 (\u22122.2 %)');
    s.mover.follow(94_120.456);
    expect(s.mover.ghost.value).toEqual({
      kind: 'sl',
      from: 94_000,
      price: 94_120.46,
      text: 'SL 94,120.46 (\u22122.1 %)',
    });
    const done = s.mover.release();
    await Promise.resolve();
    expect(s.asked).toEqual([
      {
        message: 'Move stop to 94,120.46 (\u22122.1 %)?',
        more: {
          title: 'Move the stop of BTC/USDT',
          details: [
            'Enter moves it, Esc keeps it where it is.',
            'The other legs are sent again as they are.',
          ],
          confirmLabel: 'Move stop',
          enterConfirms: true,
        },
      },
    ]);
    await Promise.resolve();
    expect(s.ran).toEqual(['protect btc sl 94120.46 tp 101000']);
    // While the command runs, no other drag starts and the ghost shows where it goes.
    expect(s.mover.busy.value).toBe(true);
    expect(s.mover.start('tp')).toBe(false);
    expect(s.mover.ghost.value?.price).toBe(94_120.46);
    s.answer();
    expect(await done).toBe(true);
    expect(s.mover.ghost.value).toBeNull();
    expect(s.mover.busy.value).toBe(false);
    expect(s.mover.refusal.value).toBeNull();
  });

  it("snaps back and keeps the server's words when the move is refused", async () => {
    const refusal = "A long's stop loss must be below the price (96,400.2500).";
    const s = setup(true, [info('protect btc sl 97000 tp 101000'), failure(refusal)]);
    s.mover.start('sl');
    s.mover.follow(97_000);
    const done = s.mover.release();
    await Promise.resolve();
    await Promise.resolve();
    s.answer();
    expect(await done).toBe(false);
    expect(s.mover.ghost.value).toBeNull();
    expect(s.mover.refusal.value).toBe(refusal);
    // The next drag clears it.
    s.mover.start('tp');
    expect(s.mover.refusal.value).toBeNull();
  });

  it('sends nothing on Esc, on a release where it started, or for a line that is not a leg', async () => {
    const s = setup(false, []);
    s.mover.start('sl');
    s.mover.follow(95_000);
    expect(await s.mover.release()).toBe(false);
    expect(s.asked).toHaveLength(1);
    expect(s.ran).toEqual([]);
    expect(s.mover.ghost.value).toBeNull();

    s.mover.start('tp');
    expect(await s.mover.release()).toBe(false);
    expect(s.asked).toHaveLength(1);

    s.mover.start('sl');
    s.mover.cancel();
    expect(s.mover.ghost.value).toBeNull();
    expect(s.mover.start('entry' as 'sl')).toBe(false);
    s.position.value = null;
    expect(s.mover.start('sl')).toBe(false);
  });

  it('sends one move for 30 releases at once', async () => {
    const s = setup(true, [success('Stop loss 95,000.0000: resting on the paper exchange.')]);
    s.mover.start('sl');
    s.mover.follow(95_000);
    const all = Promise.all(Array.from({ length: 30 }, () => s.mover.release()));
    await Promise.resolve();
    await Promise.resolve();
    s.answer();
    expect((await all).filter(Boolean)).toHaveLength(1);
    expect(s.asked).toHaveLength(1);
    expect(s.ran).toEqual(['protect btc sl 95000 tp 101000']);
  });
});
