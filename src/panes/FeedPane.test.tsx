import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { completed, makeSignal } from '../services/feed/testing/signals';
import { createFakeClock } from '../services/testing/fakeClock';
import { FeedPane } from './FeedPane';

afterEach(cleanup);

const cards = () => screen.queryAllByTestId('signal-card');

describe('feed pane', () => {
  it('renders content as text: markup stays visible characters and only http(s) becomes a link', () => {
    const { services } = renderWithServices(<FeedPane />);
    const evil = '<img src=x onerror="window.hacked=1"> see https://ok.example/a and javascript:alert(1)';
    act(() => void services.stores.feed.receive(makeSignal(1, { content: evil })));
    const card = cards()[0];
    if (card === undefined) throw new Error('no card');
    expect(card.querySelector('img[src="x"]')).toBeNull();
    expect(within(card).getByTestId('card-content').textContent).toBe(evil);
    const links = within(card).getByTestId('card-content').querySelectorAll('a');
    expect(
      [...links].map((a) => [a.getAttribute('href'), a.getAttribute('rel'), a.getAttribute('target')]),
    ).toEqual([['https://ok.example/a', 'noopener noreferrer', '_blank']]);
    const header = card.querySelector('a.card-from');
    expect(header?.getAttribute('href')).toBe('https://news.example/1');
    expect(header?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(within(card).getByTestId('card-analyzing').textContent).toBe('analyzing…');
  });

  it('shows a completed card with tags, GENERAL, sentiment, Impact to two decimals and the reasoning hint', () => {
    const { services } = renderWithServices(<FeedPane />);
    act(() => {
      services.stores.feed.receive(completed(makeSignal(1), 'negative', 87.456, ['ETH', 'BTC']));
      services.stores.feed.receive(completed(makeSignal(2), 'neutral', 12));
    });
    const [general, tagged] = cards();
    expect(within(general!).getByText('GENERAL')).toBeTruthy();
    expect(
      within(tagged!)
        .getAllByTestId('asset-tag')
        .map((t) => t.getAttribute('data-ticker')),
    ).toEqual(['ETH', 'BTC']);
    expect(within(tagged!).getByTestId('card-sentiment').textContent).toBe('NEGATIVE');
    expect(within(tagged!).getByTestId('card-impact').textContent).toBe('Impact 87.46');
    expect(within(tagged!).getByTestId('card-reasoning').getAttribute('title')).toBe(
      'Because of News item 1.',
    );
    expect(tagged!.className).toContain('negative');
  });

  it('marks a retracted card RETRACTED with the denial on hover, and the denial links back to it', () => {
    const { services } = renderWithServices(<FeedPane />);
    const rumour = completed(makeSignal(1), 'positive', 90, ['BTC']);
    act(() => {
      services.stores.feed.receive(rumour);
      services.stores.feed.receive({ ...completed(makeSignal(2), 'negative', 70, ['BTC']), retracts: '1' });
      services.stores.feed.receive({
        ...rumour,
        retraction: { signal_id: '2', received_at: rumour.received_at, reason: 'Not true.', kind: 'denial' },
      });
    });
    const [denial, retracted] = cards();
    const mark = within(retracted!).getByTestId('card-retracted');
    expect(mark.textContent).toContain('RETRACTED');
    expect(mark.getAttribute('title')).toBe('Retracted by #2 (denied): Not true.');
    expect(retracted!.className).toContain('retracted');
    expect(within(denial!).queryByTestId('card-retracted')).toBeNull();
    const link = within(denial!).getByTestId('card-retracts');
    expect(link.textContent).toBe('retracts #1');
    expect(link.getAttribute('href')).toBe('#signal-1');
    fireEvent.click(link);
    expect(services.stores.feedView.focusedId.value).toBe('1');
  });

  it('tags a coin not traded here plainly: no watch toggle, no change, and a title that says so', () => {
    const { services } = renderWithServices(<FeedPane />);
    act(() => {
      services.stores.feed.receive(completed(makeSignal(3), 'positive', 40, ['BTC', 'PEPE', 'CAKEX']));
    });
    const [card] = cards();
    const tags = within(card!).getAllByTestId('asset-tag');
    expect(tags.map((t) => [t.getAttribute('data-ticker'), t.getAttribute('data-tradable')])).toEqual([
      ['BTC', 'true'],
      ['PEPE', 'true'],
      ['CAKEX', 'false'],
    ]);
    expect(tags[2]?.getAttribute('title')).toBe('Not tradable here: no futures contract');
    expect(within(tags[2]!).queryByTestId('tag-change')).toBeNull();
    // BTC is on the symbol list; PEPE trades as 1000PEPE, whose ticker the watchlist keeps; CAKEX not at all.
    expect(
      within(card!)
        .getAllByTestId('watch-toggle')
        .map((b) => b.getAttribute('data-ticker')),
    ).toEqual(['BTC']);
  });

  it('shows a stablecoin the news is about muted, without a change, a toggle or a popover', () => {
    const { services } = renderWithServices(<FeedPane />);
    act(() => {
      services.stores.session.setToken('t');
      services.stores.feed.receive(
        completed(makeSignal(4), 'negative', 90, ['USDC', 'BTC'], { BTC: 100_000 }),
      );
    });
    const [card] = cards();
    const [usdc, btc] = within(card!).getAllByTestId('asset-tag');
    expect(usdc?.tagName).toBe('SPAN');
    expect(usdc?.className).toBe('tag untraded stablecoin');
    expect(usdc?.getAttribute('data-tradable')).toBe('false');
    expect(usdc?.getAttribute('title')).toBe('USDC is a stablecoin: shown, not traded');
    expect(within(usdc!).queryByTestId('tag-change')).toBeNull();
    expect(btc?.tagName).toBe('BUTTON');
    fireEvent.mouseEnter(usdc!);
    act(() => services.feed.quickTrade.openRow('4', 'USDC', 'long'));
    expect(services.feed.quickTrade.popover.value).toBeNull();
    expect(
      within(card!)
        .getAllByTestId('watch-toggle')
        .map((b) => b.getAttribute('data-ticker')),
    ).toEqual(['BTC']);
  });

  it('shows no change for an asset until the server has sent its price at arrival', () => {
    const { services } = renderWithServices(<FeedPane />);
    const done = completed(makeSignal(1), 'positive', 60, ['BTC', 'ETH'], { BTC: 100_000 });
    act(() => {
      services.stores.feed.receive(done);
      services.stores.market.applyPrices([
        { s: 'BTCUSDT', p: 101_000, t: 1 },
        { s: 'ETHUSDT', p: 3_030, t: 1 },
      ]);
    });
    const changes = () => screen.getAllByTestId('tag-change').map((c) => c.textContent);
    expect(changes()).toEqual(['+1.00%', '—']);
    act(() => void services.stores.feed.receive({ ...done, initial_prices: { BTC: 100_000, ETH: 3_000 } }));
    expect(changes()).toEqual(['+1.00%', '+1.00%']);
  });

  it('cuts long content behind Read More and brings it back with Show Less', () => {
    const { services } = renderWithServices(<FeedPane />);
    const long = `${'lorem ipsum '.repeat(30)}END`;
    act(() => void services.stores.feed.receive(makeSignal(1, { content: long })));
    const content = () => screen.getByTestId('card-content').textContent ?? '';
    expect(content()).not.toContain('END');
    fireEvent.click(screen.getByRole('button', { name: 'Read More' }));
    expect(content()).toContain('END');
    fireEvent.click(screen.getByRole('button', { name: 'Show Less' }));
    expect(content()).not.toContain('END');
  });

  it('disables My Watchlist when logged out, and filters by sentiment and Min Impact', () => {
    const { services } = renderWithServices(<FeedPane />);
    act(() => {
      services.stores.feed.receive(completed(makeSignal(1), 'positive', 90, ['BTC']));
      services.stores.feed.receive(completed(makeSignal(2), 'negative', 40, ['ETH']));
    });
    expect((screen.getByRole('tab', { name: 'My Watchlist' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Positive' }));
    expect(cards().map((c) => c.dataset.id)).toEqual(['1']);
    fireEvent.click(screen.getByRole('button', { name: 'Positive' }));
    fireEvent.change(screen.getByRole('slider', { name: 'Min Impact' }), { target: { value: '50' } });
    expect(screen.getByTestId('min-impact').textContent).toBe('50');
    expect(cards().map((c) => c.dataset.id)).toEqual(['1']);
    act(() => services.stores.session.setToken('t'));
    expect((screen.getByRole('tab', { name: 'My Watchlist' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('refreshes the time-ago label every second from the clock', () => {
    const clock = createFakeClock(Date.UTC(2026, 0, 1));
    const { services } = renderWithServices(<FeedPane />, { clock });
    const stop = services.feed.start();
    act(() => void services.stores.feed.receive(makeSignal(1)));
    expect(screen.getByTestId('card-time').textContent).toBe('just now');
    act(() => clock.advance(15_000));
    expect(screen.getByTestId('card-time').textContent).toBe('15s ago');
    act(() => clock.advance(120_000));
    expect(screen.getByTestId('card-time').textContent).toBe('2m ago');
    stop();
  });
});
