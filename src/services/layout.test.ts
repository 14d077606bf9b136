import { describe, expect, it } from 'vitest';
import { LAYOUT_KEY, createLayoutStore } from './layout';
import { memoryStorage } from './storage';

describe('layout store', () => {
  it('saves group sizes in storage and restores them on the next load', () => {
    const storage = memoryStorage();
    const layout = createLayoutStore(storage);
    expect(layout.saved('main-row')).toBeUndefined();
    layout.save('main-row', { chart: 30, terminal: 50, feed: 20 });
    expect(createLayoutStore(storage).saved('main-row')).toEqual({ chart: 30, terminal: 50, feed: 20 });
  });

  it('layout reset forgets the sizes and bumps the version so the view rebuilds', () => {
    const storage = memoryStorage({ [LAYOUT_KEY]: JSON.stringify({ dashboard: { main: 80, bottom: 20 } }) });
    const layout = createLayoutStore(storage);
    expect(layout.saved('dashboard')).toEqual({ main: 80, bottom: 20 });
    layout.reset();
    expect(layout.version.value).toBe(1);
    expect(layout.saved('dashboard')).toBeUndefined();
    expect(storage.get(LAYOUT_KEY)).toBeNull();
  });

  it('ignores a stored value it cannot read, and numbers focus requests', () => {
    const layout = createLayoutStore(memoryStorage({ [LAYOUT_KEY]: '{"x": {"a": "wide"}}' }));
    expect(layout.saved('x')).toBeUndefined();
    layout.requestFocus('feed');
    layout.requestFocus('feed');
    expect(layout.focusRequest.value).toEqual({ pane: 'feed', n: 2 });
  });
});
