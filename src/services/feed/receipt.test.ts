import { describe, expect, it } from 'vitest';
import { makeSignal } from './testing/signals';
import { ageLabel, stagesText } from './receipt';

const T = Date.UTC(2026, 2, 5, 14, 2, 0);
const at = (ms: number) => new Date(ms).toISOString();

describe('a card’s receipt', () => {
  it('says how long before it reached this screen the headline was published, and each stage in ms', () => {
    const timeline = {
      published_at: at(T - 1200),
      received_at: at(T),
      analysed_at: at(T + 3),
      sent_at: at(T + 4),
    };
    const s = {
      ...makeSignal(1, { published_at: timeline.published_at, received_at: timeline.received_at, timeline }),
      client_received_at: T + 16,
    };
    expect(ageLabel(s)).toBe('published 1.2 s before it reached you');
    expect(stagesText(s)).toBe(
      'published → received: 1200 ms\nreceived → analysed: 3 ms\nanalysed → sent: 1 ms\nsent → reached you: 12 ms',
    );
  });

  it('says nothing of an age the source did not give, or gave from the future, and marks missing stages', () => {
    const s = { ...makeSignal(2, { received_at: at(T) }), client_received_at: T + 20 };
    expect(ageLabel(s)).toBeNull();
    expect(stagesText(s)).toContain('received → analysed: —');
    const future = {
      ...makeSignal(3, { received_at: at(T), published_at: at(T + 60_000) }),
      client_received_at: T,
    };
    expect(ageLabel(future)).toBeNull();
    const old = {
      ...makeSignal(4, { received_at: at(T), published_at: at(T - 12 * 60_000) }),
      client_received_at: T + 5,
    };
    expect(ageLabel(old)).toBe('published 12 min before it reached you');
    expect(stagesText(old)).toContain('published → received: 720000 ms (12 min)');
  });
});
