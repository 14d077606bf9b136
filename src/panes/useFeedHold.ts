import { useEffect, type RefObject } from 'react';
import type { FeedView } from '../services/feed/feedView';

/** Scrolled further down than this (px), the reader is reading on: new cards wait above. */
export const READING_BELOW_PX = 8;

/**
 * Holds the feed's cards in place while the user reads it: scrolled down the list, or with focus on a
 * card (one of its buttons) or on the feed's frame (`g f`, then j/k). Back at the top with focus
 * elsewhere, new cards come in at the top again.
 */
export function useFeedHold(root: RefObject<HTMLElement | null>, view: FeedView): void {
  useEffect(() => {
    const pane = root.current;
    const frame = pane?.closest<HTMLElement>('[data-pane="feed"]') ?? pane;
    if (pane === null || frame === null || frame === undefined) return;
    const list = (): HTMLElement | null => pane.querySelector<HTMLElement>('.feed-list');
    const check = (): void => {
      const cards = list();
      const scrolled = (cards?.scrollTop ?? 0) > READING_BELOW_PX;
      // The frame itself (`g f`, then j/k) or a card's control; the tabs and filters above do not hold.
      const active = document.activeElement;
      const focused = active === frame || (cards !== null && cards.contains(active));
      view.hold(scrolled || focused);
    };
    // focusout fires before the focus lands elsewhere: look once it has.
    const later = (): void => void setTimeout(check, 0);
    pane.addEventListener('scroll', check, true);
    frame.addEventListener('focusin', check);
    frame.addEventListener('focusout', later);
    check();
    return () => {
      pane.removeEventListener('scroll', check, true);
      frame.removeEventListener('focusin', check);
      frame.removeEventListener('focusout', later);
      view.hold(false);
    };
  }, [root, view]);
}
