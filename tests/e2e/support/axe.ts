import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One rule broken, with where: what an accessibility failure message needs to be fixed. */
export interface AxeProblem {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

interface AxeWindow {
  axe?: typeof axe;
}

/**
 * Runs axe-core in the page (injected from the installed package, so nothing is fetched) over the
 * whole document or one selector, and answers the serious and critical violations.
 */
export async function seriousViolations(page: Page, selector?: string): Promise<AxeProblem[]> {
  const loaded = await page.evaluate(() => (window as unknown as AxeWindow).axe !== undefined);
  if (!loaded) await page.evaluate(axe.source);
  return page.evaluate(async (scope) => {
    const engine = (window as unknown as AxeWindow).axe;
    if (engine === undefined) throw new Error('axe-core did not load');
    const context = scope === null ? document : (document.querySelector(scope) ?? document);
    const result = await engine.run(context, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        rule: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.map((n) => n.target.join(' ')),
      }));
  }, selector ?? null);
}
