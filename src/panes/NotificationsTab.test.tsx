import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationsState } from '../contracts/notifications';
import { ServicesProvider } from '../app/AppContext';
import { renderWithServices } from '../app/testing/renderWithServices';
import { NotificationsTab } from './NotificationsTab';

afterEach(cleanup);

/** Services signed in, the server's answers set up by `answer`, then the tab shown (it loads on mount). */
function showTab(answer: (server: ReturnType<typeof renderWithServices>['server']) => void) {
  const view = renderWithServices(<div />);
  answer(view.server);
  act(() => view.services.stores.session.setToken('t'));
  view.rerender(
    <ServicesProvider value={view.services}>
      <NotificationsTab />
    </ServicesProvider>,
  );
  return view;
}

const settle = () =>
  act(async () => {
    await new Promise((r) => setTimeout(r, 20));
  });

function stateWith(telegram: Partial<NotificationsState['telegram']>): NotificationsState {
  return {
    settings: { ...DEFAULT_NOTIFICATION_SETTINGS },
    telegram: { configured: true, bot: 'SignalBot', linked: false, chat: null, linked_at: null, ...telegram },
    push: { configured: true, public_key: 'BKey', subscriptions: 1 },
  };
}

describe('Account → Notifications', () => {
  it('makes a Telegram link code and shows it with its t.me link and expiry', async () => {
    let state = stateWith({});
    const expires = new Date(Date.now() + 10 * 60_000).toISOString();
    const { services, server } = showTab((server) => {
      server.on('GET /notifications', () => ({ status: 200, body: state }));
      server.on('POST /notifications/telegram/link', () => ({
        status: 200,
        body: { code: 'K7P2QX', url: 'https://t.me/SignalBot?start=K7P2QX', expires_at: expires },
      }));
    });
    await settle();
    fireEvent.click(await screen.findByRole('button', { name: 'Link Telegram' }));
    await settle();
    const code = screen.getByTestId('telegram-code');
    expect(code.textContent).toContain('Send K7P2QX to @SignalBot');
    expect(screen.getByRole('link', { name: 'https://t.me/SignalBot?start=K7P2QX' })).toBeTruthy();
    expect(code.textContent).toContain('The code works once, in a private chat with the bot, until');

    // Linked: the chat's name and Unlink.
    state = stateWith({ linked: true, chat: '@ann', linked_at: new Date().toISOString() });
    server.on('DELETE /notifications/telegram/link', () => {
      state = stateWith({});
      return { status: 204 };
    });
    act(() => services.stores.notifications.set(state));
    expect(screen.getByTestId('telegram-block').textContent).toContain('Linked to @ann');
    fireEvent.click(screen.getByRole('button', { name: 'Unlink' }));
    await settle();
    expect(server.count('DELETE /notifications/telegram/link')).toBe(1);
    expect(screen.getByRole('button', { name: 'Link Telegram' })).toBeTruthy();
  });

  it('says when the server has no Telegram bot, and runs a switch as the notify command', async () => {
    let state = stateWith({ configured: false, bot: null });
    showTab((server) => {
      server.on('GET /notifications', () => ({ status: 200, body: state }));
      server.on('PATCH /notifications', (r) => {
        state = { ...state, settings: { ...state.settings, ...(JSON.parse(r.body ?? '{}') as object) } };
        return { status: 200, body: state.settings };
      });
    });
    await settle();
    expect((await screen.findByTestId('telegram-block')).textContent).toBe(
      'Telegram is not set up on this server.',
    );
    fireEvent.click(screen.getByTestId('notify-fills'));
    await settle();
    expect(state.settings.fills).toBe(false);
    expect((screen.getByTestId('notify-fills') as HTMLInputElement).checked).toBe(false);
  });
});
