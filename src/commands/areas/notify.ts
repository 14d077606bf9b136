import { z } from 'zod';
import {
  ALERT_THRESHOLD,
  type NotificationSettings,
  type NotificationsState,
} from '../../contracts/notifications';
import {
  NOTIFY_TEXT,
  PUSH_UNSUPPORTED,
  linkTelegram,
  loadNotifications,
  saveNotifications,
  setPush,
  unlinkTelegram,
} from '../../services/notifications';
import { failure, info, success, type OutputLine } from '../../services/terminal/output';
import { THRESHOLD_TEXT } from '../../services/feed/alertSettings';
import { defineCommand } from '../types';
import { OnOff, onOff } from './alerts';
import { linkAnswerLines, UNLINKED } from './telegram';

const AREA = 'notify';

/** What `notify` prints: the server's settings, then where notes can go. */
export function notifyLines(state: NotificationsState, pushHere: boolean | null): OutputLine[] {
  const s = state.settings;
  const telegram = !state.telegram.configured
    ? NOTIFY_TEXT.telegramOff
    : state.telegram.linked
      ? `linked${state.telegram.chat === null ? '' : ` to ${state.telegram.chat}`}`
      : 'not linked (notify telegram link)';
  const push = !state.push.configured
    ? NOTIFY_TEXT.pushServerOff
    : `${state.push.subscriptions} browser${state.push.subscriptions === 1 ? '' : 's'}${pushHere === true ? ', this one included' : ''}`;
  return [
    info(`Alerts                 ${onOff(s.alerts)} at impact ${s.alert_threshold} and above`),
    info(`Rule fills and exits   ${onOff(s.fills)}`),
    info(`Retractions            ${onOff(s.retractions)}`),
    info(`Liquidation warnings   ${onOff(s.liquidation)}`),
    info(`Daily PnL (00:00 UTC)  ${onOff(s.daily_pnl)}`),
    info(`Live orders (Telegram) ${onOff(s.telegram_live_orders)}`),
    info(`Telegram               ${telegram}`),
    info(`Web Push               ${push}`),
  ];
}

export const notify = defineCommand({
  name: 'notify',
  area: AREA,
  summary: 'Show what reaches you away from the tab (Telegram, Web Push) and which events are sent.',
  usage: 'notify',
  examples: ['notify', 'notify alerts on', 'notify threshold 85', 'notify push on'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const store = ctx.stores.notifications;
    const loaded = await loadNotifications(ctx.api.main, store);
    if (!loaded.ok) return [failure(loaded.message)];
    return { lines: notifyLines(loaded.value, store.pushHere.peek()), data: loaded.value };
  },
});

/** `notify <name> on|off` for one switch of the settings. */
function toggle(
  word: string,
  key: keyof Omit<NotificationSettings, 'alert_threshold'>,
  what: string,
  extra = '',
) {
  return defineCommand({
    name: `notify ${word}`,
    area: AREA,
    summary: `Turn ${what} on or off.${extra}`,
    usage: `notify ${word} <state>`,
    examples: [`notify ${word} on`, `notify ${word} off`],
    args: z.object({ state: OnOff.describe('on or off') }),
    complete: { state: () => ['on', 'off'] },
    loginRequired: true,
    async run(ctx, { state }) {
      const done = await saveNotifications(ctx.api.main, ctx.stores.notifications, { [key]: state });
      if (!done.ok) return [failure(done.message)];
      return { lines: [success(`${cap(what)} ${onOff(state)}.`)], data: done.value };
    },
  });
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const alertsSwitch = toggle('alerts', 'alerts', 'alerts of high-impact signals');
export const fills = toggle('fills', 'fills', "notes of your rules' fills and exits");
export const retractions = toggle(
  'retractions',
  'retractions',
  'notes of retracted stories you traded or were alerted on',
);
export const liquidation = toggle('liquidation', 'liquidation', 'liquidation warnings');
export const pnl = toggle('pnl', 'daily_pnl', 'the daily PnL at 00:00 UTC');
export const liveOrders = toggle(
  'live-orders',
  'telegram_live_orders',
  'orders on live keys from Telegram',
  " Turning it on asks to confirm it's you.",
);

export const threshold = defineCommand({
  name: 'notify threshold',
  area: AREA,
  summary: 'Set the impact at or above which a completed signal is sent to you (50-95, steps of 5).',
  usage: 'notify threshold <impact>',
  examples: ['notify threshold 85'],
  args: z.object({
    impact: z.coerce
      .number({ error: THRESHOLD_TEXT })
      .int({ error: THRESHOLD_TEXT })
      .min(ALERT_THRESHOLD.min, { error: THRESHOLD_TEXT })
      .max(ALERT_THRESHOLD.max, { error: THRESHOLD_TEXT })
      .refine((n) => n % ALERT_THRESHOLD.step === 0, { error: THRESHOLD_TEXT })
      .describe('50, 55 … 95'),
  }),
  complete: { impact: () => ['50', '60', '70', '75', '80', '85', '90', '95'] },
  loginRequired: true,
  async run(ctx, { impact }) {
    const done = await saveNotifications(ctx.api.main, ctx.stores.notifications, { alert_threshold: impact });
    if (!done.ok) return [failure(done.message)];
    return { lines: [success(`Signals at impact ${impact} and above are sent to you.`)], data: done.value };
  },
});

export const push = defineCommand({
  name: 'notify push',
  area: AREA,
  summary: 'Send notes to this browser when the tab is closed (Web Push), or stop.',
  usage: 'notify push <state>',
  examples: ['notify push on', 'notify push off'],
  args: z.object({ state: OnOff.describe('on or off') }),
  complete: { state: () => ['on', 'off'] },
  loginRequired: true,
  async run(ctx, { state }) {
    const store = ctx.stores.notifications;
    const support = store.port.support();
    if (state && support !== null) return [failure(PUSH_UNSUPPORTED[support])];
    const done = await setPush(ctx.api.main, store, state);
    if (!done.ok) return [failure(done.message)];
    return { lines: [success(state ? NOTIFY_TEXT.pushOn : NOTIFY_TEXT.pushOff)], data: { on: state } };
  },
});

export const telegram = defineCommand({
  name: 'notify telegram',
  area: AREA,
  summary: 'Link a Telegram chat (a one-time code for the bot) or unlink it.',
  usage: 'notify telegram <action>',
  examples: ['notify telegram link', 'notify telegram unlink'],
  args: z.object({
    action: z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(['link', 'unlink'], { error: 'Say link or unlink.' }))
      .describe('link or unlink'),
  }),
  complete: { action: () => ['link', 'unlink'] },
  loginRequired: true,
  async run(ctx, { action }) {
    const store = ctx.stores.notifications;
    const state =
      store.state.peek() ??
      (await loadNotifications(ctx.api.main, store).then((r) => (r.ok ? r.value : null)));
    if (state !== null && !state.telegram.configured) return [failure(NOTIFY_TEXT.telegramOff)];
    if (action === 'unlink') {
      const done = await unlinkTelegram(ctx.api.main, store);
      return done.ok ? [success(UNLINKED)] : [failure(done.message)];
    }
    const done = await linkTelegram(ctx.api.main, store);
    if (!done.ok) return [failure(done.message)];
    return { lines: linkAnswerLines(done.value), data: done.value };
  },
});

export default [
  notify,
  alertsSwitch,
  threshold,
  fills,
  retractions,
  liquidation,
  pnl,
  liveOrders,
  push,
  telegram,
];
