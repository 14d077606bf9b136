import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createFakeClock } from '../../services/testing/fakeClock';
import { createFakeServer } from '../../services/testing/fakeServer';
import { ServicesProvider } from '../AppContext';
import { createAppServices } from '../services';

/** Renders a view with real services over a fake server, history and clock. */
export function renderWithServices(ui: ReactElement) {
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
  });
  const view = render(<ServicesProvider value={services}>{ui}</ServicesProvider>);
  return { server, services, ...view };
}
