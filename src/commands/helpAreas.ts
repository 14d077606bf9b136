import { info, muted, styled, type OutputLine } from '../services/terminal/output';
import { byArea } from './help';
import type { CommandDefinition, RegistryView } from './types';

/** What each area is for, in a few words: the one line `help` gives it. */
export const AREA_SUMMARIES: Readonly<Record<string, string>> = {
  general: 'help, clearing the screen, aliases, the fat-finger cap, the layout',
  market: 'the chosen symbol, prices and the chart',
  trading: 'orders, closes, positions, trades, balance, leverage and protection',
  rules: 'auto-trading rules, their ledger, risk limits and the kill switch',
  account: 'sign-up, login, password, 2FA, devices and wallets',
  feed: 'the news feed: filters, opening a story, trading a signal, sources, the scorecard',
  watchlist: 'the coins you follow',
  alerts: 'high-impact alerts: threshold, sound, highlight, browser notifications',
  notify: 'what reaches you away from the tab: fills, retractions, liquidations, push, Telegram',
  telegram: 'linking a Telegram chat',
  amounts: "the cards' quick-trade amounts and default bracket",
  keys: 'exchange API keys, and which account orders go to',
  premium: 'your plan: upgrade, switch, cancel',
  admin: 'administration (admins only)',
};

/** The handful a new trader needs first: the line to type, the command it runs, what it does. */
export const FIRST_COMMANDS: readonly { line: string; command: string; does: string }[] = [
  {
    line: 'btc long 500',
    command: 'order',
    does: 'go long BTC for 500 USDT (eth short 2k: a short, k = thousands)',
  },
  { line: 'positions', command: 'positions', does: 'your open positions and their PnL' },
  { line: 'close btc', command: 'close', does: 'close the BTC position (close all: every one)' },
  { line: 'feed --min 70', command: 'feed', does: 'the news with an impact of 70 or more' },
  { line: 'price btc', command: 'price', does: "BTC's last price" },
  { line: 'login', command: 'login', does: 'sign in to trade; key add connects an exchange' },
];

const HINT = 'Type "help <area>" for its commands, "help <command>" for usage and examples.';

/** `help`: one line per area, then the commands to start with. */
export function overview(registry: RegistryView): OutputLine[] {
  const areas = [...byArea(registry)];
  const width = Math.max(...areas.map(([area]) => area.length));
  const lines: OutputLine[] = [info('Areas:')];
  for (const [area, commands] of areas) {
    const about = AREA_SUMMARIES[area] ?? commands.map((c) => c.name).join(', ');
    lines.push(
      styled([
        { text: `  ${area.padEnd(width)}`, style: 'header' },
        { text: `  ${about} (${commands.length})` },
      ]),
    );
  }
  const first = FIRST_COMMANDS.filter((c) => registry.get(c.command) !== undefined);
  if (first.length > 0) {
    const lineWidth = Math.max(...first.map((c) => c.line.length));
    lines.push(info('Start with:'));
    for (const c of first) {
      lines.push(
        styled([{ text: `  ${c.line.padEnd(lineWidth)}`, style: 'header' }, { text: `  ${c.does}` }]),
      );
    }
  }
  lines.push(muted(`${HINT} Chain commands with ";".`));
  return lines;
}

/** The commands of one area, when `name` is an area (`help trading`); null otherwise. */
export function areaListing(registry: RegistryView, name: string, except?: string): OutputLine[] | null {
  const commands = byArea(registry).get(name.toLowerCase());
  if (commands === undefined) return null;
  const shown = commands.filter((c) => c.name !== except);
  if (shown.length === 0) return null;
  const width = Math.max(...shown.map((c) => c.name.length));
  const title = except === undefined ? `${name.toLowerCase()} commands:` : `Also in ${name.toLowerCase()}:`;
  return [
    info(title),
    ...shown.map((c: CommandDefinition) =>
      styled([{ text: `  ${c.name.padEnd(width)}`, style: 'header' }, { text: `  ${c.summary}` }]),
    ),
    ...(except === undefined ? [muted('Type "help <command>" for its usage and examples.')] : []),
  ];
}
