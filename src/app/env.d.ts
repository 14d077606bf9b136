/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Main API base; default `/api` on the same origin. */
  readonly VITE_API_BASE?: string;
  /** Trading/price API base; default `/api` on the same origin. */
  readonly VITE_TRADING_API_BASE?: string;
  /** WalletConnect Cloud project id; unset lists only the browser's injected wallet. */
  readonly VITE_WALLETCONNECT_PROJECT_ID?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
