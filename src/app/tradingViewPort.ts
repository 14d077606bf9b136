import { TV_FRAME_SANDBOX, type TradingViewPort } from '../services/market/tradingView';

/**
 * TradingView's chart in a sandboxed frame of its own origin, a reachability check and
 * `navigator.onLine`. The core decides when to show it and how long to wait.
 */
export function browserTradingView(): TradingViewPort {
  return {
    online: () => navigator.onLine,
    async reach(url) {
      // An opaque answer is enough to know TradingView answered; nothing of ours goes with the request.
      try {
        await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' });
        return true;
      } catch {
        return false;
      }
    },
    create({ containerId, frameId, url }) {
      const container = document.getElementById(containerId);
      if (container === null) throw new Error(`No element #${containerId} for TradingView's chart.`);
      const frame = document.createElement('iframe');
      // The sandbox is set before the frame has an address, so its page never runs without it.
      frame.setAttribute('sandbox', TV_FRAME_SANDBOX);
      frame.id = frameId;
      frame.title = "TradingView's chart";
      frame.className = 'chart-tv-frame';
      frame.dataset.testid = 'chart-tv-frame';
      frame.referrerPolicy = 'no-referrer';
      frame.src = url;
      container.replaceChildren(frame);
      return () => frame.remove();
    },
  };
}
