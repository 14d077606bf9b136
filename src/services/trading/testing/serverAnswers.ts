import { ErrorBody } from '../../../contracts/errors';
import { CloseAllResponse, CloseResponse, OrderPreview, OrderResponse } from '../../../contracts/trading';
import answers from './server-answers.json';

/**
 * What the real server answered (recorded by `npm run fixtures:trading`, checked against the server by
 * tests/integration/trading-answers.test.ts): browser tests reply with these instead of invented bodies.
 */
type Name = keyof typeof answers;

/** A recorded order fill, parsed with the contract the browser uses. */
export const recordedFill = (name: Name) => OrderResponse.parse(answers[name].body);

/** The recorded answer of `close eth`, and of `close all` after it. */
export const recordedClose = () => CloseResponse.parse(answers['close eth'].body);
export const recordedCloseAll = () => CloseAllResponse.parse(answers['close all'].body);

/** A recorded preview. */
export const recordedPreview = (name: Name) => OrderPreview.parse(answers[name].body);

/** A recorded refusal's reply: its status and `{detail}` body. */
export function recordedRefusal(name: Name): { status: number; body: { detail: string } } {
  const { status, body } = answers[name];
  const parsed = ErrorBody.parse(body);
  if (typeof parsed.detail !== 'string') throw new Error(`${name} is not a refusal with a text detail`);
  return { status, body: { detail: parsed.detail } };
}

/** The reply a fake server gives for a recorded answer. */
export const recordedReply = (name: Name) => ({ status: answers[name].status, body: answers[name].body });
