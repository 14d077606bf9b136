import { describe, expect, it } from 'vitest';
import { BTC_LONG, ETH_SHORT } from '../services/trading/testing/fixtures';
import { createTestConsole } from './testing/scripted';

describe('Tab completion from the providers commands declare', () => {
  it('completes command names, group names and, once typed, tickers in the first word', () => {
    const c = createTestConsole();
    expect(c.complete('bt')).toEqual(['btc']);
    expect(c.complete('he')).toEqual(['help']);
    expect(c.complete('po')).toEqual(['positions', 'pol']);
    expect(c.complete('2f')).toEqual(['2fa']);
    expect(c.complete('')).toContain('long');
    expect(c.complete('')).not.toContain('btc');
    expect(c.commands.completeLine('symbol eth; pri')).toEqual({ from: 12, candidates: ['price'] });
  });

  it('completes sub-commands of a group', () => {
    const c = createTestConsole();
    expect(c.complete('devices ')).toEqual(['rm', 'revoke-all']);
    expect(c.complete('2fa s')).toEqual(['setup']);
    // `close` takes `all` as a sub-command, or the ticker of an open position only.
    expect(c.complete('close ')).toEqual(['all']);
    c.stores.positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    expect(c.complete('close ')).toEqual(['all', 'btc', 'eth']);
    expect(c.complete('close a')).toEqual(['all']);
    expect(c.complete('close e')).toEqual(['eth']);
  });

  it('completes tickers, intervals, command names and order words per argument', () => {
    const c = createTestConsole();
    expect(c.complete('symbol et')).toEqual(['eth', 'etc', 'ethfi']);
    expect(c.complete('price so')).toContain('sol');
    expect(c.complete('chart 1')).toEqual(['1m', '15m', '1h', '12h', '1d']);
    expect(c.complete('help lo')).toEqual(['long', 'login', 'logout', 'login wallet']);
    expect(c.complete('leverage btc ')).toEqual([]); // the leverage number has no candidates
    expect(c.complete('btc l')).toEqual(['long']);
    expect(c.complete('order btc s')).toEqual(['short']);
  });

  it('completes the saved quick-trade amounts after a side', () => {
    const c = createTestConsole();
    expect(c.complete('long ')).toEqual(['100', '250', '1k', '5k']);
    c.stores.quickAmounts.add('2.5k');
    c.stores.quickAmounts.add(50);
    c.stores.quickAmounts.remove(100);
    c.stores.quickAmounts.remove(250);
    c.stores.quickAmounts.remove(1000);
    c.stores.quickAmounts.remove(5000);
    expect(c.complete('btc long ')).toEqual(['50', '2.5k']);
    expect(c.complete('short 2')).toEqual(['2.5k']);
  });

  it('completes device ids from the last device list, and alias names', async () => {
    const c = createTestConsole({ token: 'tok' });
    c.server.on('GET /auth/devices', () => ({
      status: 200,
      body: [
        {
          id: '3f2a9c1d-0000-4000-8000-000000000001',
          device_info: { browser: 'Chrome', os: 'Linux' },
          device_fingerprint: 'abcdef0123456789',
          last_used_at: '2025-01-06T12:00:00Z',
          is_current: true,
        },
      ],
    }));
    expect(c.complete('devices rm ')).toEqual([]);
    await c.type('devices');
    expect(c.complete('devices rm 3f')).toEqual(['3f2a9c1d']);
    await c.type('alias b="btc long"');
    expect(c.complete('unalias ')).toEqual(['b']);
    expect(c.complete('b')).toContain('b');
    // An alias completes as its expansion: `b ` is `btc long `, so amounts come next.
    expect(c.complete('b ')).toEqual(['100', '250', '1k', '5k']);
  });
});
