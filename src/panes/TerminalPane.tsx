import { effect } from '@preact/signals-core';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { useServices } from '../app/AppContext';
import { OrderPreviewBar } from './OrderPreviewBar';
import { TerminalLog } from './TerminalLog';
import { MONO_FONT, TERMINAL_THEME } from './terminalTheme';

/** The command line: xterm wired to the terminal session, which owns editing, history and output. */
export function TerminalPane() {
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
    const refit = (): void => {
      if (element.clientWidth > 0 && element.clientHeight > 0) fit.fit();
    };
    refit();
    const observer = new ResizeObserver(refit);
    observer.observe(element);

    const detach = terminal.attach({ write: (data) => term.write(data) });
    const input = term.onData((data) => void terminal.input(data));
    // Focus on load, and whenever something asks (the `/` and Ctrl+` shortcuts).
    const stopFocus = effect(() => {
      void stores.ui.terminalFocusRequests.value;
      term.focus();
    });

    return () => {
      stopFocus();
      input.dispose();
      detach();
      observer.disconnect();
      term.dispose();
    };
  }, [terminal, stores.ui]);

  return (
    <section className="pane terminal-pane" aria-label="Command line">
      <div className="terminal-host" ref={host} data-testid="terminal" />
      <OrderPreviewBar />
      <TerminalLog />
    </section>
  );
}
