import type { NotificationPermissionState, NotificationPort, SoundPort } from '../services/feed/alerts';

/** The browser's Notification API behind the core's port. */
export function browserNotifications(): NotificationPort {
  const api = typeof Notification === 'function' ? Notification : null;
  return {
    permission: (): NotificationPermissionState => api?.permission ?? 'unsupported',
    async request() {
      if (api === null) return 'unsupported';
      return api.requestPermission();
    },
    show({ title, body, tag }) {
      if (api === null || api.permission !== 'granted') return;
      try {
        new api(title, { body, tag });
      } catch {
        // Some browsers only allow notifications from a service worker; nothing more to do.
      }
    },
  };
}

/** Notes of each alert: a rising pair for positive news, a falling pair for negative news. */
const TONES = {
  positive: [
    [660, 0],
    [880, 0.12],
  ],
  negative: [
    [440, 0],
    [330, 0.14],
  ],
} as const;

/**
 * The two alert sounds, generated with Web Audio (no sound files): two short sine notes with a quick
 * attack and decay. The audio context is made on the first alert (browsers allow it after a click).
 */
export function webAudioSound(): SoundPort {
  let context: AudioContext | null = null;
  return {
    play(kind) {
      if (typeof AudioContext !== 'function') return;
      context ??= new AudioContext();
      const ctx = context;
      if (ctx.state === 'suspended') void ctx.resume();
      const start = ctx.currentTime + 0.01;
      for (const [frequency, offset] of TONES[kind]) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = 'sine';
        osc.frequency.value = frequency;
        gain.gain.setValueAtTime(0.0001, start + offset);
        gain.gain.exponentialRampToValueAtTime(0.2, start + offset + 0.015);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.22);
        osc.connect(gain).connect(ctx.destination);
        osc.start(start + offset);
        osc.stop(start + offset + 0.25);
      }
    },
  };
}
