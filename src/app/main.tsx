import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { systemClock } from '../services/clock';
import { browserNotifications, webAudioSound } from './alertPorts';
import { App } from './App';
import { ServicesProvider } from './AppContext';
import { browserHistory } from './historyPort';
import { createAppServices } from './services';
import { browserSignalStream } from './signalStreamPort';
import { browserPush } from './pushPort';
import { browserStorage } from './storagePort';
import { browserTradingView } from './tradingViewPort';
import './styles/base.css';
import './styles/dashboard.css';
import './styles/pages.css';

const services = createAppServices({
  mainBase: import.meta.env.VITE_API_BASE ?? '/api',
  tradingBase: import.meta.env.VITE_TRADING_API_BASE ?? '/api',
  fetch: (input, init) => window.fetch(input, init),
  history: browserHistory(),
  clock: systemClock,
  userAgent: navigator.userAgent,
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  storage: browserStorage(),
  signalStream: browserSignalStream(),
  sound: webAudioSound(),
  notifications: browserNotifications(),
  tradingView: browserTradingView(),
  push: browserPush(),
});
services.start();
// `open 2` and the cards' headers open a source in a new tab, never with access back to this page.
services.stores.feedView.onOpenUrl((url) => window.open(url, '_blank', 'noopener,noreferrer'));
// `upgrade` and the Upgrade modal leave for the provider's checkout page (or the built-in sandbox one).
services.stores.premium.onRedirect((url) => window.location.assign(url));

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <ServicesProvider value={services}>
      <App />
    </ServicesProvider>
  </StrictMode>,
);
