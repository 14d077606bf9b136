import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_TEXTS } from '../../src/contracts/exchanges';
import { ACCOUNT_TEXT } from '../../src/services/trading/account';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { answerDialog, recordNativeDialogs } from './support/dialogs';
import { signUpAndLogInThroughUi } from './support/session';

const GOOD = { apiKey: 'E2eGoodKey0123456789abcdef', secret: 'e2e-good-secret-0123456789' };
const WITHDRAW = { apiKey: 'E2eWithdrawKey0123456789', secret: 'e2e-withdraw-secret-0123' };

describe('API Settings in the browser', () => {
  let env: E2eEnv;
  let binance: SignedDouble;
  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(GOOD.apiKey, { ...GOOD, ipRestrict: true });
    binance.keys.set(WITHDRAW.apiKey, { ...WITHDRAW, enableWithdrawals: true, ipRestrict: false });
    env = await startE2e({
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      // Nothing listens on the discard port: demo keys are saved unverified.
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await env?.close();
    await binance?.close();
  });

  it('saves, lists, warns about and deletes keys; refuses a key that can withdraw until confirmed', async () => {
    const { page, problems, offsite } = await openPage(env);
    const native = recordNativeDialogs(page);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'kim@example.com', 'kim', 'keys pass 1');

    const opener = page.locator('header.header').getByRole('button', { name: 'API Settings' });
    await opener.click();
    const modal = page.getByRole('dialog', { name: 'API Key Management' });
    await expect.poll(() => modal.innerText()).toContain(KEY_TEXTS.none);
    expect(await modal.getByLabel('Exchange').inputValue()).toBe('binance');
    expect(await modal.getByLabel('Exchange').locator('option').allInnerTexts()).toEqual([
      'Binance',
      'Bybit',
      'OKX',
    ]);
    // Binance asks for no passphrase.
    expect(await modal.getByLabel('Passphrase').count()).toBe(0);
    expect(await modal.getByLabel('Secret Key').getAttribute('type')).toBe('password');
    const notice = modal.getByTestId('keys-notice');

    // §5: blank (or whitespace-only) key or secret is refused before any call.
    await modal.getByLabel('API Key', { exact: true }).fill('   ');
    await modal.getByLabel('Secret Key').fill('x');
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.empty);

    // A new key is Demo unless Live is picked. A live key Binance refuses is not saved; the message is Binance's.
    expect(await modal.getByLabel('Environment').inputValue()).toBe('demo');
    await modal.getByLabel('Environment').selectOption('live');
    await modal.getByLabel('API Key', { exact: true }).fill('Unknown0Key0123456789');
    await modal.getByLabel('Secret Key').fill('whatever');
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect
      .poll(() => notice.innerText())
      .toBe('Binance refused the key: Invalid API-key, IP, or permissions for action.');

    await modal.getByLabel('API Key', { exact: true }).fill(` ${GOOD.apiKey} `);
    await modal.getByLabel('Secret Key').fill(GOOD.secret);
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.saved);
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(1);
    const good = modal.getByTestId('key-row').first();
    expect(await good.innerText()).toMatch(/^Binance\s+·\s+LIVE\s+·\s+E2eG…cdef\s+verified/);
    expect(await modal.getByLabel('API Key', { exact: true }).inputValue()).toBe('');

    // A key that can withdraw: refused with the server's text, saved only after "Save anyway".
    await modal.getByLabel('Environment').selectOption('live');
    await modal.getByLabel('API Key', { exact: true }).fill(WITHDRAW.apiKey);
    await modal.getByLabel('Secret Key').fill(WITHDRAW.secret);
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.withdrawalsRefused());
    expect(await modal.getByTestId('key-row').count()).toBe(1);
    await modal.getByRole('button', { name: 'Save anyway' }).click();
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(2);
    const warnings = await modal.getByTestId('key-row').nth(1).getByTestId('key-warning').allInnerTexts();
    expect(warnings).toEqual([
      KEY_TEXTS.warnings['withdrawals-enabled'],
      KEY_TEXTS.warnings['no-ip-whitelist'],
    ]);

    // Demo environment with Binance unreachable: saved, marked unverified.
    await modal.getByLabel('Environment').selectOption('demo');
    await modal.getByLabel('API Key', { exact: true }).fill('E2eDemoKey0123456789');
    await modal.getByLabel('Secret Key').fill('demo-secret');
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(`${KEY_TEXTS.saved} ${KEY_TEXTS.unverified()}`);
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(3);
    expect(await modal.getByTestId('key-row').nth(2).innerText()).toMatch(
      /^Binance\s+·\s+DEMO\s+·\s+\S+…\S+\s+unverified/,
    );

    await page.screenshot({ path: path.join(ARTIFACTS, 'keys-modal.png') });

    // Delete asks first, in the spec's words.
    await modal
      .getByTestId('key-row')
      .nth(2)
      .getByRole('button', { name: /Delete/ })
      .click();
    // The app's own dialog names the key's environment and hint; focus goes back to the keys window.
    const deleting = await answerDialog(page, true);
    expect(deleting.message).toBe(KEY_TEXTS.confirmDelete);
    expect(deleting.details[0]).toMatch(/^DEMO Binance key \S+…\S+$/);
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.deleted);
    await expect.poll(() => modal.evaluate((m) => m.contains(document.activeElement))).toBe(true);
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(2);
    const goodId = (await good.locator('.key-meta code').innerText()).trim();

    // The secret never reaches the page once saved.
    expect(await modal.innerText()).not.toContain(GOOD.secret);

    // Esc closes it and gives focus back to the header button.
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('API Settings');

    // Orders to that key's account: the prompt and the panes say LIVE, the first order asks first.
    await page.locator('[data-testid="terminal"] .xterm').click();
    await page.keyboard.type(`account use ${goodId}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('terminal-log').innerText()).toContain('Orders go to: LIVE');
    await expect
      .poll(() => page.getByTestId('positions').getByTestId('account-badge').innerText())
      .toBe('BINANCE LIVE');
    expect(await page.locator('[data-testid="terminal"] .xterm-rows').innerText()).toContain(
      'kim@BTC/USDT binance live ›',
    );
    await page.getByRole('tab', { name: 'Trade', exact: true }).click();
    const panel = page.getByTestId('trade-panel');
    expect(await panel.getByTestId('account-badge').innerText()).toBe('BINANCE LIVE');
    await panel.getByLabel('Total (USDT)').fill('250');
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    expect((await answerDialog(page, true)).message).toBe(
      ACCOUNT_TEXT.confirmFirstLive({ venue: 'binance', mode: 'live', keyHint: 'E2eG…cdef' }),
    );
    // 250 USDT at 60,000 is 0.004 BTC to the nearest step (0.001 BTC = 60 USDT), and the panel says so.
    await expect
      .poll(() => page.getByTestId('trade-status').innerText())
      .toMatch(/^Success! Order ID: \d+\. Filled LONG 0\.004 BTC ≈ 240\.00 USDT of BTC\/USDT/);
    expect(binance.orders.map((o) => [o.symbol, o.side, o.quantity])).toEqual([['BTCUSDT', 'BUY', '0.004']]);
    // The second order of the session goes without asking.
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    await expect.poll(() => binance.orders.length).toBe(2);
    expect(await page.getByTestId('confirm-dialog').count()).toBe(0);
    expect(native).toEqual([]);
    await page.getByRole('tab', { name: 'Positions' }).click();
    await expect
      .poll(() =>
        page.locator('[data-testid="position-row"][data-symbol="BTC/USDT"]').locator('td').nth(2).innerText(),
      )
      .toBe('0.008');
    await page.screenshot({ path: path.join(ARTIFACTS, 'keys-live-account.png') });
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
