import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { LayoutPort } from '../commands/shell';
import type { PaneId } from './keyboard';
import { STORAGE_PREFIX, readJson, writeJson, type StoragePort } from './storage';

/** Sizes of a group's panels by panel id, in percent (react-resizable-panels' `Layout`). */
export type PanelSizes = Readonly<Record<string, number>>;

/** The tiling layout the person dragged, saved in storage; and which pane a key asked to focus. */
export interface LayoutStore extends LayoutPort {
  /** Bumped by {@link reset}, so the view rebuilds its groups with the default sizes. */
  readonly version: ReadonlySignal<number>;
  /** The last focus request from a key (`g f`, Ctrl+1…), numbered so a repeat still counts. */
  readonly focusRequest: ReadonlySignal<{ pane: PaneId; n: number } | null>;
  /** The saved sizes of a group, if any. */
  /** The `?` key map is showing. */
  readonly keyMapOpen: ReadonlySignal<boolean>;
  showKeyMap(open: boolean): void;
  saved(groupId: string): PanelSizes | undefined;
  save(groupId: string, sizes: PanelSizes): void;
  requestFocus(pane: PaneId): void;
}

export const LAYOUT_KEY = `${STORAGE_PREFIX}layout`;

const isLayouts = (v: unknown): v is Record<string, Record<string, number>> =>
  typeof v === 'object' &&
  v !== null &&
  Object.values(v).every(
    (g) =>
      typeof g === 'object' &&
      g !== null &&
      Object.values(g as object).every((n) => typeof n === 'number' && Number.isFinite(n)),
  );

export function createLayoutStore(storage: StoragePort): LayoutStore {
  const version = signal(0, { name: 'layout.version' });
  const focusRequest = signal<{ pane: PaneId; n: number } | null>(null, { name: 'layout.focusRequest' });
  const keyMapOpen = signal(false, { name: 'layout.keyMapOpen' });
  let layouts = readJson(storage, LAYOUT_KEY, isLayouts, {});
  return {
    version,
    focusRequest,
    keyMapOpen,
    showKeyMap(open) {
      keyMapOpen.value = open;
    },
    saved: (groupId) => layouts[groupId],
    save(groupId, sizes) {
      layouts = { ...layouts, [groupId]: { ...sizes } };
      writeJson(storage, LAYOUT_KEY, layouts);
    },
    reset() {
      layouts = {};
      storage.remove(LAYOUT_KEY);
      version.value += 1;
    },
    requestFocus(pane) {
      focusRequest.value = { pane, n: (focusRequest.peek()?.n ?? 0) + 1 };
    },
  };
}
