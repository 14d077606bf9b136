import type { TradingViewFrame, TradingViewPort } from '../market/tradingView';

/** How the fake answers a reachability check: at once (true: answered, false: failed), or only when told. */
export type FakeLoadAnswer = boolean | 'hang';

/**
 * A TradingView port the test drives: online or not, checks that succeed, fail or hang until
 * {@link FakeTradingView.finishLoad}, and a record of the frames shown and still on screen.
 */
export function createFakeTradingView(options: { online?: boolean; answer?: FakeLoadAnswer } = {}) {
  let online = options.online ?? true;
  let answer: FakeLoadAnswer = options.answer ?? true;
  const waiting: ((ok: boolean) => void)[] = [];
  const loads: string[] = [];
  const created: TradingViewFrame[] = [];
  let onScreen = 0;
  let broken = false;
  const port: TradingViewPort = {
    online: () => online,
    reach(url) {
      loads.push(url);
      if (answer === 'hang') return new Promise((resolve) => waiting.push(resolve));
      return Promise.resolve(answer);
    },
    create(frame) {
      if (broken) throw new Error('No element for the frame');
      created.push(frame);
      onScreen += 1;
      return () => {
        onScreen -= 1;
      };
    },
  };
  return {
    port,
    /** The addresses checked, in order. */
    loads,
    /** Every frame shown, in order. */
    created,
    /** Frames shown and not yet taken out. */
    onScreen: () => onScreen,
    setOnline(next: boolean): void {
      online = next;
    },
    answerLoads(next: FakeLoadAnswer): void {
      answer = next;
    },
    /** Settles every hanging check. */
    finishLoad(ok: boolean): void {
      for (const resolve of waiting.splice(0)) resolve(ok);
    },
    /** Makes showing a frame throw, as a page without the pane's element would. */
    breakWidget(): void {
      broken = true;
    },
  };
}

export type FakeTradingView = ReturnType<typeof createFakeTradingView>;
