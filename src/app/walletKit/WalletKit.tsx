import '@rainbow-me/rainbowkit/styles.css';
import {
  RainbowKitAuthenticationProvider,
  RainbowKitProvider,
  connectorsForWallets,
  createAuthenticationAdapter,
  darkTheme,
  useConnectModal,
} from '@rainbow-me/rainbowkit';
import { injectedWallet, metaMaskWallet, walletConnectWallet } from '@rainbow-me/rainbowkit/wallets';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { custom, http, type Transport } from 'viem';
import { WagmiProvider, createConfig } from 'wagmi';
import { arbitrum, base, mainnet, optimism, polygon } from 'wagmi/chains';
import type { Eip1193 } from '../../services/auth/wallet';

/** What the kit needs from the app: our SIWE flow, and being told when the person closed it. */
export interface WalletKitProps {
  prepare(address: string, chainId: number): Promise<string>;
  verify(message: string, signature: string): Promise<boolean>;
  closed(): void;
}

const CHAINS = [mainnet, base, arbitrum, optimism, polygon] as const;

/**
 * The wallet kit's configuration. Without a WalletConnect project id only the injected wallet is listed,
 * so nothing outside this site is contacted; chain reads go through the injected wallet when there is one.
 */
function kitConfig() {
  const projectId = import.meta.env.VITE_WALLETCONNECT_PROJECT_ID;
  const connectors = connectorsForWallets(
    [
      {
        groupName: 'Wallets',
        wallets:
          projectId === undefined || projectId === ''
            ? [injectedWallet]
            : [injectedWallet, metaMaskWallet, walletConnectWallet],
      },
    ],
    { appName: 'Signal Console', projectId: projectId ?? 'not-configured' },
  );
  const injected = (globalThis as { ethereum?: Eip1193 }).ethereum;
  const transport = (): Transport => (injected === undefined ? http() : custom(injected));
  return createConfig({
    chains: CHAINS,
    connectors,
    transports: {
      [mainnet.id]: transport(),
      [base.id]: transport(),
      [arbitrum.id]: transport(),
      [optimism.id]: transport(),
      [polygon.id]: transport(),
    },
  });
}

/**
 * Opens the connect window (connect, then the kit's sign-in step); closing it hands control back. The
 * kit closes its windows while it mounts, so the opening waits one tick.
 */
function OpenOnMount({ closed }: { closed(): void }) {
  const { openConnectModal, connectModalOpen } = useConnectModal();
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || openConnectModal === undefined) return undefined;
    const timer = setTimeout(() => openConnectModal(), 0);
    return () => clearTimeout(timer);
  }, [openConnectModal]);
  useEffect(() => {
    if (connectModalOpen) opened.current = true;
    else if (opened.current) closed();
  }, [connectModalOpen, closed]);
  return null;
}

/** wagmi + RainbowKit, with RainbowKit's authentication adapter running our SIWE flow. */
export default function WalletKit({ prepare, verify, closed }: WalletKitProps) {
  const [config] = useState(kitConfig);
  const [queryClient] = useState(() => new QueryClient());
  const adapter = useMemo(
    () =>
      createAuthenticationAdapter<string>({
        // The nonce is chosen by the server together with the message (createMessage below).
        getNonce: () => Promise.resolve('server-chosen'),
        createMessage: ({ address, chainId }) => prepare(address, chainId),
        verify: ({ message, signature }) => verify(message, signature),
        signOut: () => Promise.resolve(),
      }),
    [prepare, verify],
  );
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <RainbowKitAuthenticationProvider adapter={adapter} status="unauthenticated">
          <RainbowKitProvider theme={darkTheme()} initialChain={mainnet} modalSize="compact">
            <OpenOnMount closed={closed} />
          </RainbowKitProvider>
        </RainbowKitAuthenticationProvider>
      </QueryClientProvider>
    </WagmiProvider>
  );
}
