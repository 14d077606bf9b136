import { describe, expect, it } from 'vitest';
import { recordedRefusal, recordedReply } from '../../services/trading/testing/serverAnswers';
import { completed, makeSignal } from '../../services/feed/testing/signals';
import { createTestConsole } from '../testing/scripted';

/** A console whose feed holds (top first) 4 SOL negative 85, 3 GENERAL neutral 30, 2 ETH positive 72, 1 analyzing. */
function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const feed = s.stores.feed;
  feed.receive(makeSignal(1, { content: 'Rumour: a listing soon' }));
  feed.receive(
    completed(makeSignal(2, { content: 'ETH ETF approved' }), 'positive', 72, ['ETH'], { ETH: 3000 }),
  );
  feed.receive(
    completed(
      makeSignal(3, { content: 'Fed holds rates', metadata: { ...makeSignal(3).metadata, url: null } }),
      'neutral',
      30,
    ),
  );
  feed.receive(
    completed(makeSignal(4, { content: 'Solana halts blocks' }), 'negative', 85, ['SOL'], { SOL: 100 }),
  );
  s.stores.market.applyPrices([{ s: 'ETHUSDT', p: 3030, t: 1 }]);
  return s;
}

describe('feed commands', () => {
  it('feed prints the latest signals numbered as on screen, with sentiment, impact and % since arrival', async () => {
    const s = session();
    const out = await s.type('feed');
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(
      /^info:\s+1 {2}#4 {5}just now {2}NEG\s+85\.00 {2}\$SOL — +Blockwire News: Solana halts blocks$/,
    );
    expect(out[1]).toMatch(/^info:\s+2 {2}#3 .*NEU\s+30\.00 {2}GENERAL +Blockwire News: Fed holds rates$/);
    expect(out[2]).toMatch(/^info:\s+3 .*POS\s+72\.00 {2}\$ETH \+1\.00% +Blockwire News: ETH ETF approved$/);
    expect(out[3]).toMatch(/^info:\s+4 .*…\s+analyzing… +Blockwire News: Rumour: a listing soon$/);
  });

  it('feed filters by asset, minimum impact and sentiment, keeping the on-screen numbers', async () => {
    const s = session();
    expect(await s.type('feed eth')).toEqual([expect.stringMatching(/^info:\s+3 .*ETH ETF approved$/)]);
    const strong = await s.type('feed --min 70');
    expect(strong.map((l) => /Blockwire News: (.*)$/.exec(l)?.[1])).toEqual([
      'Solana halts blocks',
      'ETH ETF approved',
    ]);
    expect(await s.type('feed --min 70 --neg')).toEqual([
      expect.stringMatching(/^info:\s+1 .*Solana halts blocks$/),
    ]);
    expect(await s.type('feed --pos')).toEqual([expect.stringMatching(/ETH ETF approved$/)]);
    expect(await s.type('feed -n 1')).toEqual([
      expect.stringMatching(/Solana halts blocks$/),
      'muted: 3 more; feed -n 50 shows all.',
    ]);
    expect(await s.type('feed doge')).toEqual(['muted: No signals match.']);
  });

  it('feed marks a signal the pane is hiding, and refuses bad filters', async () => {
    const s = session();
    s.stores.feedView.toggleSentiment('positive');
    expect(await s.type('feed --neg')).toEqual([expect.stringMatching(/^info:\s+· .*Solana halts blocks$/)]);
    expect(await s.type('feed --pos --neg')).toEqual(['error: Choose --pos or --neg, not both.']);
    expect((await s.type('feed --min 120'))[0]).toBe('error: The minimum impact is a number from 0 to 100.');
    expect((await s.type('feed zzz'))[0]).toBe(
      'error: Unknown symbol: ZZZ. Type a ticker such as BTC or ETH.',
    );
  });

  it("open <n> opens the n-th signal's source", async () => {
    const s = session();
    const opened: string[] = [];
    s.stores.feedView.onOpenUrl((url) => opened.push(url));
    expect(await s.type('open 3')).toEqual(['success: Opened https://news.example/2']);
    expect(await s.type('open 2')).toEqual(['error: Signal 2 has no link.']);
    expect(await s.type('open 9')).toEqual(['error: There is no signal 9 on screen.']);
    expect(opened).toEqual(['https://news.example/2']);
  });

  it("<n> short 250 trades the n-th signal's asset and says what filled", async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    expect(await s.type('3 short 250')).toEqual([
      'success: Successfully placed SHORT order for ETH/USDT with 250 USDT. Filled SHORT 0.079 ETH ≈ 249.16 USDT of ' +
        'ETH/USDT at 3,153.94, fee 0.12 USDT. Paper exchange: no real funds.',
    ]);
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toEqual({
      symbol: 'ETH/USDT',
      side: 'short',
      type: 'market',
      amount: 250,
      // Counted as the card's in the trade history.
      source: 'card',
    });
    expect(s.stores.positions.refreshRequests.value.count).toBe(1);
    const refusal = recordedRefusal('sol long 150000');
    s.server.on('POST /orders', () => refusal);
    expect(await s.answering('1 sell 150k', 'y')).toEqual([`error: Error: ${refusal.body.detail}`]);
    expect(JSON.parse(s.server.requests[1]?.body ?? '{}')).toMatchObject({
      symbol: 'SOL/USDT',
      side: 'short',
    });
  });

  it('<n> long needs an asset, a valid line, a signal on screen and a login', async () => {
    const s = session();
    expect(await s.type('2 long 500')).toEqual(['error: Asset ticker not found.']);
    expect(await s.type('3 long -5')).toEqual(['error: Invalid asset or amount.']);
    expect(await s.type('9 short 100')).toEqual(['error: There is no signal 9 on screen.']);
    const guest = session(null);
    expect(await guest.type('3 long 500')).toEqual(['error: You must be logged in.']);
    expect(guest.stores.ui.authModal.value).toBe('login');
    expect(guest.server.requests).toEqual([]);
  });

  it('<n> long shows the server detail as "Error: …", and asks above the fat-finger cap', async () => {
    const s = session();
    s.server.on('POST /orders', () => ({ status: 400, body: { detail: 'Margin is insufficient.' } }));
    expect(await s.type('3 long 500')).toEqual(['error: Error: Margin is insufficient.']);
    expect(await s.answering('3 long 30k', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.asked[0]).toContain('30k USDT is above your fat-finger cap');
    expect(s.server.count('POST /orders')).toBe(1);
  });

  it('the preview line does not read `3 long 500` as an order of an asset called 3', () => {
    const s = session();
    expect(s.commands.readOrder('3 long 500')).toBeNull();
    expect(s.commands.readOrder('eth long 500')).toMatchObject({ ok: true });
  });
});

describe('cards addressed by id, and numbers that moved while typing', () => {
  it('#<id> long trades that signal whose id is on the card, wherever it sits now', async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    s.stores.feed.receive(completed(makeSignal(5, { content: 'ICP listing' }), 'positive', 80, ['ICP']));
    await s.type('#2 short 250');
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toMatchObject({
      symbol: 'ETH/USDT',
      side: 'short',
    });
    expect(await s.type('#99 long 100')).toEqual(['error: There is no signal #99 in the feed.']);
    expect((await s.type('trade-signal x long 100'))[0]).toBe(
      'error: Give a card: #113 (the id on the card) or 5 (the fifth card on screen).',
    );
    expect(s.server.count('POST /orders')).toBe(1);
  });

  it('#<id> short 1k eth trades a named asset of the signal, and refuses one it does not name', async () => {
    const s = session();
    s.stores.feed.receive(
      completed(makeSignal(6, { content: 'BTC and ETH rally' }), 'positive', 80, ['BTC', 'ETH']),
    );
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    await s.type('#6 short 250 eth');
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toMatchObject({
      symbol: 'ETH/USDT',
      side: 'short',
    });
    expect(await s.type('#6 long 100 sol')).toEqual(['error: Signal #6 is about BTC, ETH, not SOL.']);
    expect(await s.type('#3 long 100 sol')).toEqual([
      'error: Signal #3 names no asset; trade SOL with "sol long <amount>".',
    ]);
    expect(await s.type('#6 long 100 zzz')).toEqual([
      'error: Unknown symbol: ZZZ. Type a ticker such as BTC or ETH.',
    ]);
    expect(s.server.count('POST /orders')).toBe(1);
  });

  it('trades a coin whose contract is in 1000 units ($FLOKI on 1000FLOKI/USDT), as its tag does', async () => {
    const s = session();
    s.stores.feed.receive(
      completed(makeSignal(7, { content: 'Floki burns a tenth of supply' }), 'positive', 70, ['FLOKI']),
    );
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    await s.type('#7 long 100');
    await s.type('1 short 100');
    await s.type('#7 long 100 floki');
    await s.type('#7 long 100 1000floki');
    const sent = s.server.requests.map((r) => JSON.parse(r.body ?? '{}') as { symbol: string; side: string });
    expect(sent.map((o) => `${o.side} ${o.symbol}`)).toEqual([
      'long 1000FLOKI/USDT',
      'short 1000FLOKI/USDT',
      'long 1000FLOKI/USDT',
      'long 1000FLOKI/USDT',
    ]);
    expect(await s.type('#7 long 100 pepe')).toEqual(['error: Signal #7 is about FLOKI, not PEPE.']);
  });

  it('asks before sending when card n is another card than when the line was started', async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    // Card 3 is ETH (#2) when the person starts typing; two signals arrive before Enter.
    s.stores.feedView.markLineStart();
    s.stores.feed.receive(completed(makeSignal(7, { content: 'ICP up' }), 'positive', 80, ['ICP']));
    s.stores.feed.receive(completed(makeSignal(8, { content: 'BTC up' }), 'positive', 80, ['BTC']));
    expect(await s.answering('3 short 250', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.asked).toEqual(['Card 3 is now SOL #4, was ETH #2: place? [y/N] ']);
    expect(s.server.count('POST /orders')).toBe(0);
    await s.answering('3 short 250', 'y');
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toMatchObject({ symbol: 'SOL/USDT' });
  });

  it('does not ask when the number still points at the same card, or for an id', async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedReply('eth short 250'));
    s.stores.feedView.markLineStart();
    await s.answering('3 short 250');
    await s.answering('#2 short 250');
    expect(s.asked).toEqual([]);
    expect(s.server.count('POST /orders')).toBe(2);
  });

  it('names a card that was not on screen when the line was started', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.stores.feedView.markLineStart();
    s.stores.feed.receive(completed(makeSignal(9, { content: 'BTC up' }), 'positive', 80, ['BTC']));
    expect(await s.answering('1 long 100', null)).toEqual(['muted: Cancelled.']);
    expect(s.asked).toEqual(['Card 1 is now BTC #9, was no card: place? [y/N] ']);
  });

  it('shows a stablecoin tag without a change and refuses to trade it, by card, by name or as an order', async () => {
    const s = session();
    s.stores.feed.receive(
      completed(makeSignal(5, { content: 'USDC slips to $0.87' }), 'negative', 88, ['USDC', 'BTC'], {
        BTC: 100_000,
      }),
    );
    s.stores.market.applyPrices([{ s: 'BTCUSDT', p: 99_000, t: 2 }]);
    // `feed usdc` lists the news about it; the tag has no price here, so no change either.
    expect(await s.type('feed usdc')).toEqual([
      expect.stringMatching(
        /^info:\s+1 {2}#5 .*NEG\s+88\.00 {2}\$USDC \$BTC -1\.00% +Blockwire News: USDC slips/,
      ),
    ]);
    const refused = 'error: USDC has no futures contract here.';
    expect(await s.type('#5 long 500')).toEqual([refused]);
    expect(await s.type('1 short 500')).toEqual([refused]);
    expect(await s.type('#5 long 500 usdc')).toEqual([refused]);
    expect(await s.type('usdc long 100')).toEqual([refused]);
    expect(await s.type('symbol usdc')).toEqual([refused, 'muted: Usage: symbol <ticker>']);
    // A stablecoin the card does not name is refused the same way; an unknown word stays unknown.
    expect(await s.type('#4 long 500 dai')).toEqual(['error: DAI has no futures contract here.']);
    expect(await s.type('#4 long 500 nocoin')).toEqual([
      'error: Unknown symbol: NOCOIN. Type a ticker such as BTC or ETH.',
    ]);
    expect(s.server.requests).toEqual([]);
  });
});
