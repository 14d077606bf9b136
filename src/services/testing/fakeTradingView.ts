import type { TradingViewPort, TradingViewWidgetOptions } from '../market/tradingView';

/** How the fake answers a script load: at once (true: loaded, false: failed), or only when told. */
export type FakeLoadAnswer = boolean | 'hang';

/**
 * A TradingView port the test drives: online or not, script loads that succeed, fail or hang until
 * {@link FakeTradingView.finishLoad}, and a record of the widgets drawn and still on screen.
 */
export function createFakeTradingView(options: { online?: boolean; answer?: FakeLoadAnswer } = {}) {
  let online = options.online ?? true;
  let answer: FakeLoadAnswer = options.answer ?? true;
  const waiting: ((ok: boolean) => void)[] = [];
  const loads: string[] = [];
  const created: TradingViewWidgetOptions[] = [];
  let onScreen = 0;
  let broken = false;
  const port: TradingViewPort = {
    online: () => online,
    load(url) {
      loads.push(url);
      if (answer === 'hang') return new Promise((resolve) => waiting.push(resolve));
      return Promise.resolve(answer);
    },
    create(widget) {
      if (broken) throw new Error('TradingView.widget is not a constructor');
      created.push(widget);
      onScreen += 1;
      return () => {
        onScreen -= 1;
      };
    },
  };
  return {
    port,
    /** The script addresses asked for, in order. */
    loads,
    /** Every widget drawn, in order. */
    created,
    /** Widgets drawn and not yet taken out. */
    onScreen: () => onScreen,
    setOnline(next: boolean): void {
      online = next;
    },
    answerLoads(next: FakeLoadAnswer): void {
      answer = next;
    },
    /** Settles every hanging load. */
    finishLoad(ok: boolean): void {
      for (const resolve of waiting.splice(0)) resolve(ok);
    },
    /** Makes drawing a widget throw, as a changed tv.js might. */
    breakWidget(): void {
      broken = true;
    },
  };
}

export type FakeTradingView = ReturnType<typeof createFakeTradingView>;
