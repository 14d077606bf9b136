import type { PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { AuthClient } from './auth.support';

export const newAccount = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());

/** Asks for a nonce, signs the server's message with `signer` and sends it to `path` for `account`. */
export async function signWith(
  client: AuthClient,
  account: PrivateKeyAccount,
  opts: {
    signer?: PrivateKeyAccount;
    path?: '/auth/web3/verify' | '/auth/web3/wallets/link';
    rememberMe?: boolean;
    rewrite?: (message: string) => string;
  } = {},
) {
  const nonceRes = await client.send('POST', '/auth/web3/nonce', { address: account.address, chain_id: 1 });
  if (nonceRes.statusCode !== 200) throw new Error(`nonce failed: ${nonceRes.body}`);
  const { message, nonce } = nonceRes.json<{ message: string; nonce: string }>();
  const text = opts.rewrite === undefined ? message : opts.rewrite(message);
  const signature = await (opts.signer ?? account).signMessage({ message: text });
  const body: Record<string, unknown> = { address: account.address, signature, nonce, chain_id: 1 };
  if (text !== message) body.message = text;
  const path = opts.path ?? '/auth/web3/verify';
  if (path === '/auth/web3/verify') {
    body.remember_me = opts.rememberMe === true;
    body.device_info = { browser: 'Chrome', os: 'Linux', user_agent: 'test' };
  }
  const res = await client.send('POST', path, body);
  const token = res.statusCode === 200 ? res.json<{ access_token?: string }>().access_token : undefined;
  if (token !== undefined) client.token = token;
  return { res, body, message: text, nonce };
}
