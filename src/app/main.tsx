import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { systemClock } from '../services/clock';
import { App } from './App';
import { ServicesProvider } from './AppContext';
import { browserHistory } from './historyPort';
import { createAppServices } from './services';
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
  dialogs: { confirm: (message) => window.confirm(message), alert: (message) => window.alert(message) },
});
services.start();

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <ServicesProvider value={services}>
      <App />
    </ServicesProvider>
  </StrictMode>,
);
