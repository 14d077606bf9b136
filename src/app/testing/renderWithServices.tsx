import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createFakeClock } from '../../services/testing/fakeClock';
import { createFakeServer } from '../../services/testing/fakeServer';
import { ServicesProvider } from '../AppContext';
import { createAppServices, type AppConfig } from '../services';

/** Renders a view with real services over a fake server, history and clock (`overrides` replace parts). */
export function renderWithServices(ui: ReactElement, overrides: Partial<AppConfig> = {}) {
  const server = createFakeServer();
  const services = createAppServices({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    clock: createFakeClock(),
    history: {
      current: () => ({ pathname: '/', search: '' }),
      push: () => undefined,
      listen: () => () => undefined,
    },
    ...overrides,
  });
  const view = render(<ServicesProvider value={services}>{ui}</ServicesProvider>);
  return { server, services, ...view };
}
