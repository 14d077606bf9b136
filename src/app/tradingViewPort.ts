import type { TradingViewPort, TradingViewWidgetOptions } from '../services/market/tradingView';

/** What tv.js puts on `window`, as far as this app uses it. */
interface TradingViewGlobal {
  widget: new (options: TradingViewWidgetOptions) => unknown;
}

const isTradingView = (tv: unknown): tv is TradingViewGlobal =>
  typeof tv === 'object' && tv !== null && typeof Reflect.get(tv, 'widget') === 'function';

const loaded = (): TradingViewGlobal | null => {
  const tv: unknown = Reflect.get(window, 'TradingView');
  return isTradingView(tv) ? tv : null;
};

/**
 * TradingView's tv.js through a script tag, added once (a failed load is taken out, so a later try adds
 * it again), and `navigator.onLine`. The core decides when to load it and how long to wait.
 */
export function browserTradingView(): TradingViewPort {
  let loading: Promise<boolean> | null = null;
  return {
    online: () => navigator.onLine,
    load(url) {
      if (loading !== null) return loading;
      const script = document.createElement('script');
      script.src = url;
      script.async = true;
      const request = new Promise<boolean>((resolve) => {
        script.onload = () => resolve(loaded() !== null);
        script.onerror = () => resolve(false);
      });
      loading = request;
      void request.then((ok) => {
        if (ok) return;
        script.remove();
        if (loading === request) loading = null;
      });
      document.head.append(script);
      return request;
    },
    create(options) {
      const tv = loaded();
      if (tv === null) throw new Error('TradingView is not loaded.');
      new tv.widget(options);
      return () => document.getElementById(options.container_id)?.replaceChildren();
    },
  };
}
