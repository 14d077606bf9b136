import { z } from 'zod';
import {
  THRESHOLD_TEXT,
  isValidThreshold,
  type NotificationSettings,
} from '../../services/feed/alertSettings';
import { failure, info, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand } from '../types';

const AREA = 'alerts';

/** `on` / `off`, in any case, as a boolean: every switch of the alert and notification commands. */
export const OnOff = z
  .string()
  .transform((s) => s.toLowerCase())
  .refine((s) => s === 'on' || s === 'off', { error: 'Say on or off.' })
  .transform((s) => s === 'on');

export const onOff = (b: boolean): string => (b ? 'on' : 'off');

function settingsLines(s: NotificationSettings): OutputLine[] {
  return [
    info(`Impact threshold       ${s.notificationImpactThreshold}`),
    info(`Visual highlights      ${onOff(s.enableVisualHighlights)}`),
    info(`Sound                  ${onOff(s.isSoundEnabled)}`),
    info(`Browser notifications  ${onOff(s.isNotificationEnabled)}`),
  ];
}

export const alerts = defineCommand({
  name: 'alerts',
  area: AREA,
  summary:
    'Show the alert settings: completed signals at or above the threshold alert. Also opens the Notifications & Alerts window.',
  usage: 'alerts',
  examples: ['alerts', 'alerts threshold 85', 'alerts sound off', 'alerts notify on'],
  args: z.object({}),
  run(ctx) {
    ctx.stores.alerts.openModal();
    const settings = ctx.stores.alerts.settings.peek();
    return { lines: settingsLines(settings), data: settings };
  },
});

export const threshold = defineCommand({
  name: 'alerts threshold',
  area: AREA,
  summary: 'Set the impact at or above which a completed signal alerts (50-95, steps of 5).',
  usage: 'alerts threshold <impact>',
  examples: ['alerts threshold 85', 'alerts threshold 50'],
  args: z.object({
    impact: z.coerce
      .number({ error: THRESHOLD_TEXT })
      .refine(isValidThreshold, { error: THRESHOLD_TEXT })
      .describe('50, 55 … 95'),
  }),
  complete: { impact: () => ['50', '60', '70', '75', '80', '85', '90', '95'] },
  run(ctx, { impact }) {
    ctx.stores.alerts.update({ notificationImpactThreshold: impact });
    return [success(`Alerts fire at impact ${impact} and above.`)];
  },
});

export const sound = defineCommand({
  name: 'alerts sound',
  area: AREA,
  summary: 'Turn the alert sounds on or off.',
  usage: 'alerts sound <state>',
  examples: ['alerts sound off', 'alerts sound on'],
  args: z.object({ state: OnOff.describe('on or off') }),
  complete: { state: () => ['on', 'off'] },
  run(ctx, { state }) {
    ctx.stores.alerts.update({ isSoundEnabled: state });
    return [success(`Alert sounds ${onOff(state)}.`)];
  },
});

export const highlight = defineCommand({
  name: 'alerts highlight',
  area: AREA,
  summary: 'Turn the highlight of alerting cards on or off.',
  usage: 'alerts highlight <state>',
  examples: ['alerts highlight off'],
  args: z.object({ state: OnOff.describe('on or off') }),
  complete: { state: () => ['on', 'off'] },
  run(ctx, { state }) {
    ctx.stores.alerts.update({ enableVisualHighlights: state });
    return [success(`Card highlights ${onOff(state)}.`)];
  },
});

export const notify = defineCommand({
  name: 'alerts notify',
  area: AREA,
  summary: 'Turn browser notifications on (the browser asks for permission) or off.',
  usage: 'alerts notify <state>',
  examples: ['alerts notify on', 'alerts notify off'],
  args: z.object({ state: OnOff.describe('on or off') }),
  complete: { state: () => ['on', 'off'] },
  async run(ctx, { state }) {
    const result = await ctx.stores.alerts.setNotifications(state);
    return [result.on === state ? success(result.message) : failure(result.message)];
  },
});

export default [alerts, threshold, sound, highlight, notify];
