import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** What breaks a layout: elements wider than the viewport, and controls whose content is cut off. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const problems: string[] = [];
    const name = (el: Element): string => {
      const label = el.getAttribute('aria-label') ?? el.getAttribute('data-testid') ?? '';
      const text = (el.textContent ?? '').trim().slice(0, 30);
      return `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${label || text}"`;
    };
    const shown = (el: Element): boolean => {
      const style = getComputedStyle(el);
      return style.visibility !== 'hidden' && style.display !== 'none' && el.getClientRects().length > 0;
    };
    if (document.documentElement.scrollWidth > width + 1) {
      problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    }
    for (const el of document.querySelectorAll('body *')) {
      // xterm draws its own rows and hidden helpers; tooltips are positioned on hover.
      if (el.closest('.xterm') || el.closest('[role="tooltip"]') || !shown(el)) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width > width + 1) problems.push(`${name(el)} is ${Math.round(rect.width)} px wide`);
    }
    const controls = document.querySelectorAll('button, select, input:not([type="hidden"]), [role="tab"]');
    for (const el of controls) {
      if (el.closest('.xterm') || !shown(el)) continue;
      const rect = el.getBoundingClientRect();
      if (rect.right > width + 1 || rect.left < -1) problems.push(`${name(el)} is outside the viewport`);
      // A control cut by its own box (text overflowing it).
      if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'INPUT') {
        problems.push(`${name(el)} is clipped: ${el.scrollWidth} > ${el.clientWidth}`);
      }
      // A control cut by an ancestor that hides what overflows it.
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const overflow = getComputedStyle(up).overflowX;
        if (overflow === 'visible') continue;
        const box = up.getBoundingClientRect();
        const scrolls = overflow === 'auto' || overflow === 'scroll';
        if (!scrolls && (rect.right > box.right + 1 || rect.left < box.left - 1)) {
          problems.push(`${name(el)} is clipped by ${name(up)}`);
        }
        break;
      }
    }
    return problems;
  });
}

describe('layouts from phone to wide screen', () => {
  let env: E2eEnv;
  // Starting the server can take minutes on a busy machine.
  beforeAll(async () => {
    env = await startE2e();
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  it.each([
    [390, 844],
    [768, 1024],
    [1280, 720],
    [1920, 1080],
  ])('at %i×%i nothing is wider than the viewport and no control is clipped', async (width, height) => {
    const { page, problems, offsite, context } = await openPage(env, { width, height });
    await page.goto(env.baseUrl + '/');
    // On a phone the terminal is mounted behind its tab in the bottom bar, not on screen.
    await page.waitForSelector('[data-testid="terminal"] .xterm', { state: 'attached' });
    await expect
      .poll(() => page.locator('[data-testid="signal-card"]').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect(await layoutProblems(page)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, `layout-${width}x${height}.png`), fullPage: true });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
