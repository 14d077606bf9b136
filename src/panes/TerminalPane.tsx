import { effect } from '@preact/signals-core';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { useServices } from '../app/AppContext';
import { createTerminalEscape } from '../services/keyboard';
import { OrderPreviewBar } from './OrderPreviewBar';
import { TerminalLog } from './TerminalLog';
import { Welcome } from './Welcome';
import { MONO_FONT, TERMINAL_THEME } from './terminalTheme';
import { dialogOpen } from './Dialog';
import { focusDropped } from './focusReturn';

/** The command line (focused on load unless told not to): xterm wired to the terminal session, which owns editing, history and output. */
/** Whether a terminal was already shown in this page: only the first one takes focus on its own. */
let pageLoaded = false;

export function TerminalPane({ focusOnLoad = true }: { focusOnLoad?: boolean }) {
  const { terminal, stores } = useServices();
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const term = new Terminal({
      theme: TERMINAL_THEME,
      fontFamily: MONO_FONT,
      fontSize: 13,
      lineHeight: 1.2,
      cursorBlink: true,
      scrollback: 2000,
      // Output links are OSC 8 hyperlinks: they open in a new tab, http(s) only.
      linkHandler: {
        activate: (_event, uri) => {
          if (/^https?:\/\//.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
        },
      },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    // Esc then Tab leaves the terminal (Tab alone completes): the browser moves focus on.
    term.attachCustomKeyEventHandler(createTerminalEscape());
    // Asked for while hidden (a phone shows one pane at a time): focus once it is on screen.
    let focusWhenShown = false;
    const refit = (): void => {
      if (element.clientWidth === 0 || element.clientHeight === 0) return;
      fit.fit();
      if (focusWhenShown && !dialogOpen()) term.focus();
      focusWhenShown = false;
    };
    refit();
    const observer = new ResizeObserver(refit);
    observer.observe(element);

    const detach = terminal.attach({ write: (data) => term.write(data), columns: () => term.cols });
    // A new width rewraps the transcript on word boundaries, and redraws the line being typed once.
    const resized = term.onResize(() => terminal.refresh());
    const input = term.onData((data) => void terminal.input(data));
    // Focus on load, and whenever something asks (the `/` and Ctrl+` shortcuts). On a phone the feed
    // comes first: the terminal waits to be asked. A terminal rebuilt later (a resize swaps the layout)
    // takes focus back only when the rebuild dropped it, never from a dialog or another control.
    let first = true;
    const stopFocus = effect(() => {
      void stores.ui.terminalFocusRequests.value;
      if (first) {
        first = false;
        const rebuilt = pageLoaded;
        pageLoaded = true;
        if (!focusOnLoad || (rebuilt && !focusDropped())) return;
      }
      if (dialogOpen()) return;
      if (element.clientWidth === 0) focusWhenShown = true;
      else term.focus();
    });

    return () => {
      stopFocus();
      input.dispose();
      resized.dispose();
      detach();
      observer.disconnect();
      term.dispose();
    };
  }, [terminal, stores.ui, focusOnLoad]);

  return (
    <section className="pane terminal-pane" aria-label="Command line">
      <Welcome />
      <div className="terminal-host" ref={host} data-testid="terminal" />
      <OrderPreviewBar />
      <TerminalLog />
    </section>
  );
}
