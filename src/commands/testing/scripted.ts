import { createApi } from '../../services/api';
import { createStores } from '../../services/stores';
import { createFakeServer } from '../../services/testing/fakeServer';
import { createCommands } from '../index';

/** A scripted session: the real registry and stores, with a fake server behind the API clients. */
export function scriptedSession() {
  const server = createFakeServer();
  const stores = createStores();
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate: () => undefined,
  });
  const commands = createCommands({ stores, api });
  /** Runs a line and answers its output as `tone: text` strings, easy to compare. */
  const type = async (line: string): Promise<string[]> =>
    (await commands.runLine(line)).map((l) => `${l.tone}: ${l.text}`);
  return { server, stores, api, commands, type };
}
