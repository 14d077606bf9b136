import type { FastifyInstance } from 'fastify';
import { AuthClient } from '../integration/auth.support';

/** Signs a new user up through the API and logs in; returns the bearer header to use. */
export async function signUpAndLogIn(
  app: FastifyInstance,
  username: string,
  password = 'correct horse battery',
): Promise<{ authorization: string; token: string }> {
  const client = new AuthClient(app);
  const signup = await client.signup(username, password);
  if (signup.statusCode >= 300) throw new Error(`signup failed: ${signup.statusCode} ${signup.body}`);
  const login = await client.login(username, password);
  if (client.token === null) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  return { authorization: `Bearer ${client.token}`, token: client.token };
}
