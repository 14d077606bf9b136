import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_TEXTS } from '../../src/contracts/exchanges';
import { VENUE_KEY_FORMS } from '../../src/contracts/venues';
import { startBybitDouble, type BybitDouble } from '../fixtures/bybit-double';
import { startOkxDouble, type OkxDouble } from '../fixtures/okx-double';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { recordNativeDialogs } from './support/dialogs';
import { signUpAndLogInThroughUi } from './support/session';

const BYBIT = { apiKey: 'E2eBybitKey0123456789ab', secret: 'e2e-bybit-secret-0123456' };
const OKX = {
  apiKey: 'E2eOkxKey0123456789abcd',
  secret: 'e2e-okx-secret-01234567',
  passphrase: 'E2e okx pass 1',
};
/** Where the screenshots of the venue form are kept for a look, beside the run's artifacts. */
const SHOTS = process.env.SHOTS_DIR ?? ARTIFACTS;
// Nothing listens on the discard port: no call leaves the machine for a venue this test does not use.
const NOWHERE = 'http://127.0.0.1:9';
const NOWHERE_WS = 'ws://127.0.0.1:9';

describe('API Settings on Bybit and OKX', () => {
  let env: E2eEnv;
  let bybit: BybitDouble;
  let okx: OkxDouble;
  beforeAll(async () => {
    [bybit, okx] = await Promise.all([startBybitDouble(), startOkxDouble()]);
    bybit.addKey(BYBIT);
    okx.addKey(OKX);
    await mkdir(SHOTS, { recursive: true });
    env = await startE2e({
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: NOWHERE,
      BINANCE_API_URL: NOWHERE,
      BINANCE_DEMO_FAPI_URL: NOWHERE,
      BYBIT_DEMO_API_URL: NOWHERE,
      BYBIT_DEMO_STREAM_URL: NOWHERE_WS,
      OKX_DEMO_API_URL: NOWHERE,
      OKX_DEMO_STREAM_URL: NOWHERE_WS,
      OKX_DEMO_BUSINESS_STREAM_URL: NOWHERE_WS,
      ...bybit.settings,
      ...okx.settings,
    });
  });
  afterAll(async () => {
    await env?.close();
    await bybit?.close();
    await okx?.close();
  });

  it('saves a Bybit key and an OKX key with its passphrase, each checked on its venue and listed by it', async () => {
    const { page, problems, offsite } = await openPage(env);
    const native = recordNativeDialogs(page);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'vera@example.com', 'vera', 'venues pass 1');

    await page.locator('header.header').getByRole('button', { name: 'API Settings' }).click();
    const modal = page.getByRole('dialog', { name: 'API Key Management' });
    await expect.poll(() => modal.innerText()).toContain(KEY_TEXTS.none);
    const exchange = modal.getByLabel('Exchange');
    expect(await exchange.locator('option').allInnerTexts()).toEqual(['Binance', 'Bybit', 'OKX']);
    const notice = modal.getByTestId('keys-notice');
    const checklist = modal.getByTestId('key-checklist');
    const passphrase = modal.getByLabel('Passphrase');

    // Bybit: no passphrase field, Bybit's checklist.
    await exchange.selectOption('bybit');
    await modal.getByLabel('Environment').selectOption('live');
    expect(await passphrase.count()).toBe(0);
    for (const item of VENUE_KEY_FORMS.bybit.checklist) expect(await checklist.innerText()).toContain(item);
    await modal.getByLabel('API Key', { exact: true }).fill(BYBIT.apiKey);
    await modal.getByLabel('Secret Key').fill(BYBIT.secret);
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.saved);
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(1);

    // OKX: the passphrase field (masked) and OKX's checklist; without the passphrase nothing is sent.
    await exchange.selectOption('okx');
    expect(await passphrase.getAttribute('type')).toBe('password');
    for (const item of VENUE_KEY_FORMS.okx.checklist) expect(await checklist.innerText()).toContain(item);
    expect(await modal.getByLabel('Environment').locator('option').allInnerTexts()).toEqual([
      'Demo (OKX demo trading)',
      'Live (real funds)',
    ]);
    await modal.getByLabel('Environment').selectOption('live');
    await modal.getByLabel('API Key', { exact: true }).fill(OKX.apiKey);
    await modal.getByLabel('Secret Key').fill(OKX.secret);
    const okxCalls = (): number => okx.requests().filter((r) => r.includes('/api/v5/account/')).length;
    const before = okxCalls();
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.passphraseMissing);
    expect(okxCalls()).toBe(before);
    await passphrase.fill(OKX.passphrase);
    await modal.screenshot({ path: path.join(SHOTS, 'keys-okx-form.png') });
    await modal.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => notice.innerText()).toBe(KEY_TEXTS.saved);
    await expect.poll(() => modal.getByTestId('key-row').count()).toBe(2);
    // The double refuses a wrong OKX-ACCESS-PASSPHRASE: verified means the passphrase went with the key.
    expect(okxCalls()).toBeGreaterThan(before);

    const rows = modal.getByTestId('key-row');
    expect(await rows.nth(0).locator('.key-main').innerText()).toMatch(
      /^Bybit\s+·\s+LIVE\s+·\s+E2eB…89ab\s+verified/,
    );
    expect(await rows.nth(1).locator('.key-main').innerText()).toMatch(
      /^OKX\s+·\s+LIVE\s+·\s+E2eO…abcd\s+verified/,
    );
    // Neither secret nor the passphrase comes back to the page.
    const shown = await modal.innerText();
    for (const secret of [BYBIT.secret, OKX.secret, OKX.passphrase]) expect(shown).not.toContain(secret);
    await modal.getByRole('region', { name: 'Saved Keys' }).screenshot({
      path: path.join(SHOTS, 'keys-venues-list.png'),
    });

    // The terminal's list names the venue of each key too.
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);
    await page.locator('[data-testid="terminal"] .xterm').click();
    await page.keyboard.type('keys');
    await page.keyboard.press('Enter');
    const log = page.getByTestId('terminal-log');
    await expect.poll(() => log.innerText()).toMatch(/Bybit\s+LIVE\s+E2eB…89ab\s+verified/);
    expect(await log.innerText()).toMatch(/OKX\s+LIVE\s+E2eO…abcd\s+verified/);

    expect(native).toEqual([]);
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
