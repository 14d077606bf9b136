import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useLayoutEffect, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialog } from './Dialog';
import { restoreDroppedFocus } from './focusReturn';

afterEach(cleanup);

function Harness({ nested = false }: { nested?: boolean }) {
  const [open, setOpen] = useState(false);
  const [inner, setInner] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && (
        <Dialog label="Outer" onClose={() => setOpen(false)}>
          <input aria-label="First" />
          <button type="button" onClick={() => setInner(true)}>
            Last
          </button>
          {nested && inner && (
            <Dialog label="Inner" onClose={() => setInner(false)}>
              <button type="button">Confirm</button>
            </Dialog>
          )}
        </Dialog>
      )}
    </>
  );
}

/** A window whose Save button is disabled while a second dialog, beside it, asks for a password. */
function SiblingHarness() {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <Dialog label="Keys" onClose={() => undefined}>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setAsking(true);
          }}
        >
          Save
        </button>
        <button type="button">Close</button>
      </Dialog>
      {asking && (
        <Dialog
          label="Confirm"
          onClose={() => {
            setAsking(false);
            setTimeout(() => setBusy(false), 30);
          }}
          initialFocus="#secret"
        >
          <input id="secret" aria-label="Password" />
        </Dialog>
      )}
    </>
  );
}

const key = (name: string, shiftKey = false): void => {
  fireEvent.keyDown(document.activeElement ?? document.body, { key: name, shiftKey });
};

describe('Dialog', () => {
  it('focuses the first control, cycles Tab inside, closes on Esc and gives focus back', () => {
    render(<Harness />);
    const opener = screen.getByRole('button', { name: 'Open' });
    opener.focus();
    fireEvent.click(opener);
    expect(document.activeElement).toBe(screen.getByLabelText('First'));

    screen.getByRole('button', { name: 'Last' }).focus();
    key('Tab');
    expect(document.activeElement).toBe(screen.getByLabelText('First'));
    key('Tab', true);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Last' }));

    key('Escape');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('pulls focus that lands outside back in', () => {
    render(<Harness />);
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    const outside = document.createElement('button');
    document.body.append(outside);
    outside.focus();
    expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true);
    outside.remove();
  });

  it('lets only the innermost of two open dialogs answer Esc', () => {
    render(<Harness nested />);
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    screen.getByRole('button', { name: 'Last' }).focus();
    fireEvent.click(screen.getByRole('button', { name: 'Last' }));
    expect(screen.getAllByRole('dialog')).toHaveLength(2);
    key('Escape');
    expect(screen.getAllByRole('dialog').map((d) => d.getAttribute('aria-label'))).toEqual(['Outer']);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Last' }));
    key('Escape');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('closes on a click on the backdrop, not on one inside', () => {
    render(<Harness />);
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    fireEvent.mouseDown(screen.getByRole('dialog'));
    expect(screen.queryByRole('dialog')).not.toBeNull();
    fireEvent.mouseDown(screen.getByRole('dialog').parentElement as HTMLElement);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

/** The page behind rebuilds while the dialog is open (as a resize does): the opener is a new element. */
function Rebuilt() {
  const [open, setOpen] = useState(false);
  const [generation, setGeneration] = useState(0);
  return (
    <>
      <button key={generation} type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && (
        <Dialog label="Rebuilt" onClose={() => setOpen(false)}>
          <button type="button" onClick={() => setGeneration((g) => g + 1)}>
            Rebuild
          </button>
        </Dialog>
      )}
    </>
  );
}

/**
 * A page whose opener is not on screen in one of its layouts (the phone keeps the header's buttons in a
 * menu), and which gives dropped focus back after each swap, as the dashboard does.
 */
function Swapped() {
  const [open, setOpen] = useState(false);
  const [narrow, setNarrow] = useState(false);
  useLayoutEffect(() => {
    restoreDroppedFocus();
  }, [narrow]);
  return (
    <>
      {!narrow && (
        <button type="button" onClick={() => setOpen(true)}>
          Open
        </button>
      )}
      <button type="button" onClick={() => setNarrow(!narrow)}>
        Swap
      </button>
      {open && (
        <Dialog label="Swapped" onClose={() => setOpen(false)}>
          <button type="button" onClick={() => setNarrow(!narrow)}>
            Swap inside
          </button>
        </Dialog>
      )}
    </>
  );
}

describe('Dialog after the page behind was rebuilt', () => {
  it('closed while its opener is off screen, gives focus to the opener once a swap shows it again', () => {
    render(<Swapped />);
    const opener = screen.getByRole('button', { name: 'Open' });
    opener.focus();
    fireEvent.click(opener);
    fireEvent.click(screen.getByRole('button', { name: 'Swap inside' }));
    expect(screen.queryByRole('button', { name: 'Open' })).toBeNull();
    key('Escape');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(document.body);
    // The swap back (a resize in the browser) comes after the close: the new opener gets focus.
    fireEvent.click(screen.getByRole('button', { name: 'Swap' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Open' }));
  });

  it('does not move focus the person placed meanwhile', () => {
    render(<Swapped />);
    const opener = screen.getByRole('button', { name: 'Open' });
    opener.focus();
    fireEvent.click(opener);
    fireEvent.click(screen.getByRole('button', { name: 'Swap inside' }));
    key('Escape');
    const swap = screen.getByRole('button', { name: 'Swap' });
    swap.focus();
    fireEvent.click(swap);
    expect(document.activeElement).toBe(swap);
  });

  it('gives focus to the control that took the opener’s place', () => {
    render(<Rebuilt />);
    const first = screen.getByRole('button', { name: 'Open' });
    first.focus();
    fireEvent.click(first);
    fireEvent.click(screen.getByRole('button', { name: 'Rebuild' }));
    expect(first.isConnected).toBe(false);
    key('Escape');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Open' }));
  });

  it('keeps focus in a dialog opened beside another, and gives it back to a button disabled meanwhile', async () => {
    render(<SiblingHarness />);
    const save = screen.getByRole('button', { name: 'Save' });
    save.focus();
    fireEvent.click(save);
    expect(document.activeElement).toBe(screen.getByLabelText('Password'));
    key('Escape');
    expect(screen.queryByRole('dialog', { name: 'Confirm' })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(save));
  });
});
