/**
 * The bundled replay set: original items written for this project (not copied from any outlet, and not
 * the analysis module's labelled headlines). Authors other than the exchanges are fictional. Icons and
 * media are files in `server/modules/news/assets/`, served at `/api/news/assets/…`.
 */

export interface ReplayAuthor {
  source_name: string;
  username: string;
  icon: string;
}

export const REPLAY_AUTHORS = {
  binance: { source_name: 'Binance Announcements', username: 'binance', icon: 'binance.svg' },
  coinbase: { source_name: 'Coinbase Markets', username: 'CoinbaseMarkets', icon: 'coinbase.svg' },
  okx: { source_name: 'OKX Announcements', username: 'okx', icon: 'okx.svg' },
  bybit: { source_name: 'Bybit Announcements', username: 'Bybit_Official', icon: 'bybit.svg' },
  upbit: { source_name: 'Upbit Notice', username: 'upbit', icon: 'upbit.svg' },
  wire: { source_name: 'Blockwire News', username: 'blockwire', icon: 'wire.svg' },
  ledger: { source_name: 'The Ledger Desk', username: 'ledgerdesk', icon: 'ledger.svg' },
  macro: { source_name: 'Macro Pulse', username: 'macropulse', icon: 'macro.svg' },
  policy: { source_name: 'Policy Watch', username: 'policywatch', icon: 'policy.svg' },
  chain: { source_name: 'On-chain Monitor', username: 'onchainmonitor', icon: 'chain.svg' },
  whale: { source_name: 'Whale Tracker', username: 'whaletracker', icon: 'whale.svg' },
  sec: { source_name: 'X', username: 'secops_alerts', icon: 'shield.svg' },
  trader: { source_name: 'X', username: 'cryptotrader_k', icon: 'x-trader.svg' },
  degen: { source_name: 'X', username: 'degen_daily', icon: 'x-degen.svg' },
  maven: { source_name: 'X', username: 'marketmaven', icon: 'x-maven.svg' },
  tg: { source_name: 'Telegram', username: 'Alpha Calls', icon: 'telegram.svg' },
} as const satisfies Record<string, ReplayAuthor>;

export type AuthorKey = keyof typeof REPLAY_AUTHORS;

export interface ReplayExtras {
  quote?: readonly [AuthorKey, string];
  media?: readonly string[];
}

export type ReplayEntry = readonly [AuthorKey, string, ReplayExtras?];

type Line = string | readonly [string, ReplayExtras];

const BY_AUTHOR: readonly (readonly [AuthorKey, readonly Line[]])[] = [
  [
    'binance',
    [
      'Binance will list Jupiter (JUP) on spot with JUP/USDT, JUP/USDC and JUP/TRY pairs; deposits open now',
      'Binance Futures will launch USDⓈ-M HYPE perpetual contract with up to 50x leverage',
      'Binance will delist ZIL, ONE and ANKR spot pairs on the 3rd of next month; withdrawals stay open for 90 days',
      'Binance adds ENA and PENDLE as new borrowable assets on cross margin',
      'Binance will list Pudgy Penguins (PENGU) with the seed tag applied',
      'Notice on removal of spot trading pairs: BAND/BTC, STORJ/BTC and RSR/BTC will be removed',
      'Binance completes the ETHFI network upgrade; deposits and withdrawals resumed',
      'Binance Launchpool introduces a new project: farm tokens by staking BNB and FDUSD for 7 days',
      'Binance will support the Sui (SUI) network upgrade; deposits and withdrawals suspended for about one hour',
      'Binance Futures will delist USDⓈ-M CELO perpetual contract; positions will be closed automatically at settlement',
      'Binance will list Virtuals Protocol (VIRTUAL) USDT-margined perpetual and open spot trading tomorrow',
      'Binance will add TAO to Simple Earn flexible products and VIP loan collateral',
      'Binance monitoring tag will be added to BAL, ZEC and DASH; these tokens show higher volatility and risk',
      'Binance will list ONDO/USDT spot; trading opens at 10:00 UTC',
    ],
  ],
  [
    'coinbase',
    [
      'Assets added to the roadmap today: Jito (JTO) and Pyth Network (PYTH)',
      'Trading for Ethena (ENA) on Coinbase will begin in stages once liquidity conditions are met',
      'Coinbase will suspend trading of MASK on the 14th; the asset will remain available for withdrawal',
      'Inbound transfers for Starknet (STRK) are now available; trading opens when liquidity is sufficient',
      'Coinbase International Exchange will list WIF-PERP and BOME-PERP perpetual futures',
      'Trading for ZKsync (ZK) is now live in all supported regions',
      'Coinbase will support the Arbitrum (ARB) network for USDC deposits on the institutional platform',
      'Limit-only mode for EIGEN-USD order book lifted; full trading enabled',
      'Coinbase adds Hyperliquid (HYPE) to its listing roadmap',
      'Coinbase is moving KAVA to limit-only mode ahead of a planned suspension',
    ],
  ],
  [
    'okx',
    [
      'OKX to list ORDI perpetual swap with up to 20x leverage',
      'OKX will delist QTUM and NEO spot trading pairs at 08:00 UTC on the 20th',
      'OKX Jumpstart: stake OKB to mine the next token; snapshot on Friday',
      'OKX completes the merge of POL tokens; old MATIC balances converted 1:1',
      'OKX suspends withdrawals on the Aptos network for wallet maintenance, expected 2 hours',
      'OKX will list TRUMP/USDT spot trading; call auction starts at 13:00 UTC',
      'OKX adds GMX, DYDX and SNX to margin trading with 5x leverage',
      'OKX to support KAS deposits and withdrawals via the Kaspa network',
    ],
  ],
  [
    'bybit',
    [
      'Bybit lists BLUR/USDT perpetual; trading starts with a 25x leverage cap',
      'Bybit will delist EOS/USDT and XTZ/USDT spot pairs; open orders cancelled at delisting',
      'Bybit Launchpool: stake MNT and USDT to earn ZRO for 10 days',
      'Bybit will support the Toncoin (TON) network upgrade; deposits paused during the fork',
      'Bybit adds ARKM and ENS to its spot copy-trading pairs',
      'Bybit lists Virtuals Protocol (VIRTUAL) spot with zero maker fees for the first week',
      'Bybit extends trading hours for tokenised gold pairs; no change to crypto markets',
    ],
  ],
  [
    'upbit',
    [
      'Upbit will list CFX in the KRW market; trading support starts at 15:00 KST',
      'Upbit designates ZRX and LRC as investment caution assets',
      'Upbit adds ETHFI to the KRW, BTC and USDT markets',
      'Upbit to end trading support for QTUM in KRW market after review',
      'Upbit will list STRK in KRW market; deposits open after network check',
      "Upbit lifts investment warning on CHZ following the project's disclosure",
      'Upbit will list 1000BONK equivalent BONK in KRW market from 17:00 KST',
    ],
  ],
  [
    'wire',
    [
      'Jupiter (JUP) jumps 14% after Binance confirms spot listing with three trading pairs',
      'Spot ether ETFs log a fifth straight day of inflows, led by the two largest issuers',
      'Decentralised exchange on Arbitrum paused after attacker drains about $23 million from lending pools',
      'Cross-chain bridge halts transfers while investigating a suspected private-key compromise',
      'Stablecoin issuer publishes monthly attestation showing reserves above circulating supply',
      'Tokenisation firm partners with a European bank to issue a digital bond on Ethereum',
      'Solana validators approve a proposal to cut vote costs, lowering the barrier for smaller operators',
      'Payments company adds USDC settlement on Stellar for merchants in 30 countries',
      'Avalanche foundation announces a $40 million grants round for gaming studios',
      'Chainlink oracle network goes live on a new layer-2, securing lending markets from day one',
      'Perpetual DEX volume sets record as traders pile into Hyperliquid markets',
      'Polygon confirms the final step of the MATIC to POL migration is complete',
      'NFT marketplace Blur announces season rewards ending, token unlock follows next month',
      'Lido DAO votes to add a dual-governance safety module to its staking contracts',
      'Aave governance approves GHO stablecoin rate cut to restore its peg',
      'Filecoin storage deals reach a new high as AI data sets move on-chain',
      'Cardano completes its governance hard fork, handing treasury votes to ADA holders',
      'The Graph migrates remaining subgraphs to its decentralised network; hosted service closes',
      'Render network moves its compute marketplace to Solana, citing lower fees',
      'Bitcoin miners sold more coins than they mined for a second week as hashprice hits a low',
      'Internet Computer developers ship a Bitcoin integration upgrade that lowers signing costs',
      'Hedera council adds a major telecom as governing member',
      'TRON network fees cut by half after a parameter vote by super representatives',
      'Immutable signs a publishing deal with a top-20 mobile game studio',
      'Injective launches a tokenised treasuries market with a regulated custodian',
    ],
  ],
  [
    'ledger',
    [
      'US spot bitcoin ETFs take in $870 million in a single day, the most in six weeks',
      'Spot bitcoin ETF outflows reach $410 million as one issuer sees record redemptions',
      'Asset manager files for a spot Solana ETF with an in-kind creation mechanism',
      'Regulator delays decision on XRP exchange-traded fund, opening a new comment period',
      'Second issuer files amended S-1 for a spot Avalanche ETF, adding staking language',
      'Hong Kong approves spot ether ETFs with staking from three local managers',
      'Listed company buys another 4,200 BTC, bringing its treasury above 500,000 coins',
      'Video game retailer says it has added bitcoin to its balance sheet',
      'Mining firm raises $300 million in convertible notes to expand its data centres',
      'Crypto lender files for bankruptcy protection after a run on withdrawals',
      'Exchange halts withdrawals citing an "unexpected liquidity shortfall", users report pending transfers',
      'Algorithmic stablecoin loses its dollar peg, trading at 0.82 after a large redemption wave',
      'Stablecoin briefly slips to 0.97 on a Curve pool imbalance, recovers within the hour',
      'Venture firm closes a $500 million fund dedicated to crypto infrastructure',
      'Layer-2 network raises $60 million in a Series B led by two crypto-native funds',
      'Ethereum restaking protocol EigenLayer opens slashing on mainnet',
      'Arbitrum DAO approves a 35 million ARB budget for gaming incentives',
      'Worldcoin expands iris-scanning operations to four new countries',
      'Ethena announces a buyback programme funded by protocol revenue',
      'dYdX community votes to use trading fees to buy back DYDX tokens',
      'Uniswap foundation proposes turning on the protocol fee switch for selected pools',
      'Maker successor protocol burns tokens worth $12 million from surplus buffer',
      'PancakeSwap burns 9 million CAKE in its weekly burn, the largest since the tokenomics change',
      'Bittensor subnet registrations double after the halving of TAO emissions',
      ['Spot ether ETF net flows chart, last 10 sessions', { media: ['etf-flows.svg'] }],
    ],
  ],
  [
    'macro',
    [
      'US CPI rises 0.2% month on month, core inflation at 3.1% year on year, slightly below forecasts',
      'Fed holds rates steady and signals two cuts later this year; risk assets rally',
      'Fed chair says the committee is in no hurry to cut, dollar strengthens',
      'US payrolls beat expectations with 272,000 jobs added; rate-cut bets pared back',
      'Bank of Japan raises rates to 0.5%, yen jumps against the dollar',
      'US 10-year Treasury yield climbs to 4.7%, the highest this year',
      'ECB cuts its deposit rate by 25 basis points and keeps the door open to more',
      'US PCE inflation cools to 2.4%, in line with forecasts',
      'Dollar index falls to a three-month low after weak retail sales',
      'Oil jumps 6% after supply disruption in the Strait of Hormuz',
      'US government shutdown averted with a last-minute funding deal',
      'China announces new stimulus for property market; Asian equities rise',
      'Gold hits an all-time high as central banks keep buying',
      'Nasdaq futures slide 2% in pre-market after chipmaker guidance disappoints',
      'Fed minutes show officials split on the pace of balance-sheet reduction',
      'US unemployment rate ticks up to 4.3%, triggering recession-rule chatter',
      'Producer prices come in hot at 0.5% month on month, bond yields rise',
      'Treasury announces smaller-than-expected refunding, yields ease',
      'Swiss National Bank cuts rates for the third time this year',
      'US consumer sentiment drops to the lowest level since 2022',
      'Japanese carry trade unwind pressures global risk assets overnight',
      'Fed announces end of quantitative tightening from next month',
    ],
  ],
  [
    'policy',
    [
      'SEC drops its case against a major exchange, ending a two-year lawsuit',
      'SEC sues a token issuer for offering unregistered securities to US investors',
      'Senate passes the stablecoin framework bill with bipartisan support',
      'House committee advances the market-structure bill that splits oversight between SEC and CFTC',
      'EU regulator publishes final MiCA rules for stablecoin reserves',
      'UK Treasury confirms regime for crypto firms will start in two years',
      'South Korea lifts ban on corporate crypto accounts for listed companies',
      'Nigeria court orders release of detained exchange executive',
      'Thailand approves tax exemption for crypto gains made through licensed platforms',
      'Brazil central bank proposes restrictions on stablecoin transfers to self-custody wallets',
      'US Treasury sanctions mixer-linked addresses tied to a ransomware group',
      'Court rules that secondary sales of XRP on exchanges are not securities transactions',
      'Department of Justice charges founder of a DeFi protocol with market manipulation',
      'CFTC fines an offshore derivatives exchange $45 million for serving US customers',
      'Hong Kong grants licences to two more virtual asset trading platforms',
      'India keeps 30% crypto tax unchanged in the annual budget',
      'Russia allows crypto payments for foreign trade under a pilot regime',
      'US executive order establishes a strategic bitcoin reserve from forfeited coins',
      'Australian regulator sues exchange over margin lending product',
      'Dubai regulator grants full operating licence to a top-10 exchange',
      'SEC approves rule change allowing options on spot ether ETFs',
      'Canada regulator caps non-qualified investor purchases of altcoins at 30,000 CAD per year',
      'Turkey introduces licensing requirement for crypto service providers',
      'Kazakhstan shuts down unlicensed exchanges and blocks their websites',
      'Argentina opens an investigation into a presidential-endorsed memecoin collapse',
    ],
  ],
  [
    'chain',
    [
      [
        'Exchange net outflows of ETH hit 180,000 coins this week, the largest since March',
        { media: ['chart-up.svg'] },
      ],
      'Stablecoin supply on Ethereum reaches a new record above $120 billion',
      'Miner reserves fall to a 14-year low as miners send coins to exchanges',
      "Active addresses on Solana fall 30% from last month's peak",
      [
        'Funding rates across perpetual venues turn negative for BTC for the first time in a month',
        { media: ['heatmap.svg'] },
      ],
      'Long-term holders distribute 250,000 BTC over 30 days, the most since the last top',
      'Open interest in SOL futures climbs to a record $6 billion',
      'Arbitrum sequencer downtime: no blocks produced for 78 minutes, now recovered',
      'Base network processed more transactions than Ethereum mainnet for the 30th day in a row',
      'TVL on Aave crosses $30 billion for the first time',
      'Ethereum gas fees drop to multi-year lows after the blob upgrade',
      'Realised price of short-term holders sits 8% below spot, historically a support level',
      'USDT minted 1 billion on TRON in a single transaction',
      'Lightning network capacity falls to 4,800 BTC as large nodes consolidate',
      'Bitcoin hashrate sets a new all-time high after difficulty adjustment',
    ],
  ],
  [
    'whale',
    [
      '5,000 BTC ($341M) transferred from unknown wallet to a major exchange',
      '120,000,000 XRP moved from an exchange to an unknown wallet',
      'Dormant wallet from 2013 wakes up and moves 2,000 BTC',
      '45,000 ETH ($140M) sent to an exchange from a wallet linked to a fund',
      '800 million DOGE transferred between two unknown wallets',
      'Whale withdraws 1.2 million SOL from an exchange and stakes it',
      'Government-labelled wallet moves 10,000 BTC to a new address',
      '250 billion SHIB moved to an exchange by a long-dormant holder',
      'Market maker deposits 30 million ARB to exchanges ahead of unlock',
      'Whale opens a $90 million long on ETH with 20x leverage on a perp DEX',
      'Whale closes a $50 million short on BTC at a loss of $3 million',
      'Defunct exchange estate moves 15,000 BTC in preparation for creditor repayments',
      'Early ICO participant sells 20,000 ETH over three days',
      'Fund redeems 300 million USDC and sends it to a bank-linked address',
      'Wallet tied to the team moves 40 million ENA to a market maker',
      'Whale accumulates 2.1 million LINK over the past week',
    ],
  ],
  [
    'sec',
    [
      [
        'We are seeing suspicious activity on a lending protocol on Base. About $7M drained so far, users should revoke approvals',
        { media: ['exploit.svg'] },
      ],
      'Phishing campaign impersonating a hardware wallet support desk is targeting users by email. Do not share seed phrases.',
      'An exploit of a yield aggregator on BNB Chain netted the attacker around $4.5M via a price-oracle manipulation',
      'Bridge exploit update: the attacker has moved 3,000 ETH through a mixer',
      'A compromised front-end on a DEX was serving a malicious approval contract for two hours; now fixed',
      'Hot wallet of a mid-size exchange drained of roughly $230M across several chains',
      "Attacker returns 90% of funds from last week's lending exploit and accepts a bounty",
      'Supply-chain attack on a popular JavaScript wallet library; pin your dependencies',
      'Memecoin deployer rug-pulled liquidity minutes after launch; $1.1M taken',
      'Private keys of a multisig signer were leaked; protocol paused minting as a precaution',
      'Address poisoning scam cost a user 1,155 WBTC today. Always check the full address.',
      'Oracle misprice on a perp DEX caused $12M in bad debt; insurance fund will cover it',
    ],
  ],
  [
    'trader',
    [
      'BTC reclaiming the weekly open. Bulls want a close above 70k for continuation',
      'ETH/BTC at a multi-year low again. Rotation into ETH still not happening',
      ['SOL breaking out of the range with volume, 200 next?', { media: ['candles.svg'] }],
      'Taking profit on half my LINK here, rest rides with stop at entry',
      'Honestly this market is boring. Chop chop chop',
      'DOGE open interest building while price flat, someone is about to get squeezed',
      'Liquidations: $620M longs wiped in 4 hours as BTC dumps below 64k',
      'Shorts got destroyed, $400M liquidated as ETH rips 9%',
      'XRP up 12% on the day, leading the majors',
      'BTC down 3% on the day, alts bleeding harder',
      'Anyone else watching TIA? Ugly chart but the unlock is mostly priced in imo',
      'Good morning. Coffee, charts, and no leverage today',
      'Funding super high on memes again. Be careful out there',
      ['My BTC dominance chart says alt season is not here yet', { media: ['chart-flat.svg'] }],
      'AVAX holding support at 25 for the third time, I am long with tight invalidation',
      'Watching the Asia open, low volume weekend pump looks fake',
    ],
  ],
  [
    'degen',
    [
      'gm. WIF looking like it wants to send',
      'new memecoin launchpad just went live and it is already full of rugs lol',
      'who is still holding NOT? asking for a friend',
      'BONK burn proposal passed, community pumped',
      '1000PEPE funding negative while price grinds up, classic',
      'TRUMP token team unlock next week, be careful',
      'just aped into PENGU, see you at the top or at the bottom',
      'lost my airdrop because I forgot to bridge. pain',
      'this cycle is all about AI agents, VIRTUAL leading',
      'ser the chart is not a chart it is a picture of a cat',
      'FLOKI partnering with a football club again?',
      'BOME volume up 300% today, no news, just vibes',
    ],
  ],
  [
    'maven',
    [
      [
        'This is the first time an ETF issuer has asked for in-kind staking. A big deal for SOL if approved.',
        { quote: ['ledger', 'Asset manager files for a spot Solana ETF with an in-kind creation mechanism'] },
      ],
      [
        'Rate cuts are priced in. The market will care more about QT ending.',
        { quote: ['macro', 'Fed chair says the committee is in no hurry to cut, dollar strengthens'] },
      ],
      [
        'Second lending exploit this month. Audits are not enough; protocols need circuit breakers.',
        {
          quote: [
            'sec',
            'We are seeing suspicious activity on a lending protocol on Base. About $7M drained so far',
          ],
        },
      ],
      'Unlock calendar this week: ARB 92M, APT 11M, STRK 64M. Supply overhang for L2s continues',
      'SUI unlock of 64 million tokens on the 1st, roughly 2% of circulating supply',
      'Aptos unlocks 11.3 million APT next week, about 2.2% of supply',
      'ZRO cliff unlock next month: 25% of supply to investors and core contributors',
      'Starknet monthly unlock: 64 million STRK to early contributors on the 15th',
      'Worldcoin extends its team unlock schedule by two years to ease sell pressure',
      'PYTH annual unlock of 2.1 billion tokens happens in May; watch for OTC deals',
      'Celestia unlock pushes 175 million TIA to investors, the largest in its history',
      'IMX unlock of 32 million tokens on Friday, about 1.9% of circulating',
      'Thread on why stablecoin growth leads bitcoin price by two months. Data inside.',
      'Tokenised treasuries crossed $5B. Ondo, Franklin and BlackRock funds make up 70%',
      [
        'Exchanges keep adding memecoin perps. Good for volume, bad for your account.',
        {
          quote: [
            'binance',
            'Binance Futures will launch USDⓈ-M HYPE perpetual contract with up to 50x leverage',
          ],
        },
      ],
      'Bitcoin halving is already in the rear-view; the next catalyst is ETF options liquidity',
      'Ethereum roadmap update: the next hard fork targets account abstraction and larger blobs',
      ['My quarterly unlock tracker is up to date, charts attached', { media: ['unlock.svg'] }],
    ],
  ],
  [
    'tg',
    [
      'Rumour: a tier-1 exchange will list KAS this week. Not confirmed.',
      'Reportedly a large fund is considering buying a stake in a DeFi protocol, details unclear',
      'Alpha: team of a top L2 hinted at a token buyback on a community call',
      'Signal: long ARB at 0.70, target 0.85, stop 0.64',
      'Heard that a Korean exchange is reviewing CFX for listing, unconfirmed',
      'Chatter about a Solana ETF approval date next month, nothing official',
      'Daily recap: BTC flat, ETH -1%, SOL +4%, memes mixed',
      'Reminder: VC unlocks are piling up in Q3, keep some dry powder',
      'Unverified: an exchange is said to be preparing to delist privacy coins in Europe',
      'Weekend call: funding resets, spot bid strong, we stay long',
      'Possible partnership between a payment giant and a Solana wallet being discussed',
      'Just a reminder to take profits in green days',
    ],
  ],
  [
    'wire',
    [
      'Ripple announces a partnership with a Middle East bank for cross-border payments',
      'Visa expands stablecoin settlement to the Solana and Avalanche networks',
      'PayPal adds Bitcoin and Ethereum buying to its business accounts in the US',
      'Samsung wallet integrates native NEAR accounts for Galaxy users',
      'Google Cloud joins the Sui network as a validator and data partner',
      'Telecom operator launches a TON-based wallet for 50 million subscribers',
      'Mastercard pilots tokenised deposits with banks on a permissioned chain',
      'Sony gaming division chooses Arbitrum for its in-game asset marketplace',
      'Deutsche Börse unit adds crypto custody for institutional clients',
      'Lufthansa loyalty programme rolls out NFT-based rewards on Polygon',
      'Stripe reintroduces crypto payouts using USDC on Solana',
      'Shopify merchants can now accept USDC via Base',
      'Nike winds down its digital sneaker platform, citing low demand',
      'Reddit discontinues its community points on Arbitrum Nova',
      'Microsoft shareholders reject proposal to assess bitcoin as a treasury asset',
      'Starbucks ends its Odyssey Web3 loyalty pilot',
      'Ethereum developers confirm the next upgrade date after a smooth testnet fork',
      'Bitcoin Core developers release version 28 with package relay improvements',
      'Solana suffers a partial outage as block production slows, validators coordinate a restart',
      'Polkadot launches agile coretime, replacing parachain auctions',
      'Cosmos Hub passes proposal to cap ATOM inflation at 10%',
      'Near Protocol ships chain signatures, allowing accounts to sign on other chains',
      'Optimism releases fault proofs on mainnet, a step toward stage-one rollup status',
      'Stacks completes the Nakamoto upgrade, cutting block times to seconds',
      'Sei v2 goes live with parallelised EVM execution',
      'ZKsync network goes down for four hours due to a sequencer bug',
      'Celestia increases its block size to 8MB after a governance vote',
      'Kaspa hashrate climbs after the crescendo upgrade lifts block rate to 10 per second',
      'Hyperliquid team announces HYPE buyback using 97% of trading fees',
      'Jupiter DAO votes to burn 3 billion JUP from the team reserve',
    ],
  ],
  [
    'ledger',
    [
      'Bitcoin slips 4% to $63,200 as traders de-risk ahead of the Fed',
      'Ether rises 6% to $3,480, outperforming bitcoin for a third session',
      ['Solana drops 8% after a network slowdown, erasing weekly gains', { media: ['chart-down.svg'] }],
      'XRP surges 18% after court ruling, volume hits a record',
      'Total crypto market cap crosses $3 trillion for the first time since 2021',
      'Bitcoin volatility index falls to an 18-month low',
      'Memecoins lead the market lower as DOGE and SHIB fall 11%',
      'Altcoins slide as bitcoin dominance rises to 58%',
      'ETH options expiry of $2.8 billion on Friday, max pain at $3,200',
      'BNB sets a new all-time high above $720 on exchange revenue growth',
      'Litecoin gains 7% on report of ETF listing filing',
      'Tether reports $1.3 billion quarterly profit and adds bitcoin to reserves',
      'Circle files for an IPO in the United States',
      'Grayscale converts its Ethereum Classic trust into an ETF with lower fees',
      'A DeFi protocol was sued by investors after an oracle failure',
      'Mt. Gox trustee extends the creditor repayment deadline by one year',
      'Terraform founder pleads guilty to fraud charges',
      'Bankrupt lender begins second distribution to creditors in stablecoins',
      'Exchange reaches settlement with US regulators, agrees to pay $4.3 billion',
      'Mining difficulty rises 6%, squeezing margins for older rigs',
    ],
  ],
  [
    'chain',
    [
      'Stablecoin USDe supply drops by $1 billion in a week as funding yields fall',
      'ETH staking ratio reaches 28% of supply',
      'Bitcoin ETF holdings overtake the largest corporate treasury combined',
      'Large wallets (>1,000 BTC) added 60,000 BTC in 30 days',
      'DEX volume on Solana surpasses Ethereum for the third straight month',
      'Curve pool for a stablecoin becomes 85% imbalanced, signalling depeg risk',
      'Aave liquidations reach $110M as ETH falls below $3,000',
      'Exchange reserves of BTC at lowest level in six years',
    ],
  ],
  [
    'trader',
    [
      'Fed day. I am flat until the press conference is over',
      'BTC CME gap at 61k still open, just saying',
      'Weekly close above resistance for ETH. Finally',
      'Crypto twitter is euphoric again. That usually means a shakeout is near',
      'SUI leading the alts with +15% this week',
      'Shorting the NEAR bounce, invalidation above 5.2',
      'Do not chase green candles. Wait for the retest',
      'BTC/ETH correlation breaking down this month, interesting',
    ],
  ],
  [
    'degen',
    [
      'ngmi if you sold your ETH at 2k',
      'airdrop season is back, farm everything',
      'WIF hat stays on',
      'just saw a 100x on a coin with a frog and a hat. this is fine',
      'another day another L2',
      'gm to everyone except people who short memes',
    ],
  ],
  [
    'macro',
    [
      'Fed cuts rates by 50 basis points in a surprise move, citing cooling labour market',
      'US core CPI accelerates to 3.4%, hotter than expected; yields jump',
      'Global markets tumble as tariffs on Chinese imports are raised to 60%',
      'Trade deal announced between the US and China, equities rally',
      'Fed balance sheet falls below $7 trillion',
      'US debt ceiling standoff returns as Treasury warns of X-date in August',
      'Bank of England holds rates at 5% with a split vote',
      'Eurozone inflation falls to 2.2%, near the ECB target',
      'US GDP grows 3.0% annualised, beating estimates',
      'Jobless claims rise to 250,000, the highest in a year',
    ],
  ],
  [
    'policy',
    [
      'SEC chair nominee pledges clear rules for crypto at confirmation hearing',
      'Federal Reserve withdraws guidance that discouraged banks from crypto activities',
      'FDIC allows banks to offer crypto custody without prior approval',
      'New York regulator approves a bank-issued stablecoin',
      'EU bans anonymous crypto accounts and privacy coins on exchanges from 2027',
      'China reiterates ban on crypto trading and mining',
      'Japan FSA plans to reclassify crypto as financial products, cutting the tax rate to 20%',
      'El Salvador agrees to stop buying bitcoin under IMF deal',
      'Pakistan sets up a crypto council and plans a bitcoin reserve',
      'Vietnam legalises crypto assets under a new digital technology law',
    ],
  ],
  [
    'bybit',
    [
      'Bybit reports security incident: unauthorised access to an ETH cold wallet, client assets backed 1:1',
      'Bybit lists SUI/USDC and TON/USDC spot pairs',
      'Bybit Card adds cashback in PENDLE for European users',
    ],
  ],
  [
    'okx',
    [
      'OKX receives MiCA licence in Malta, plans EU-wide services',
      'OKX will list EIGEN perpetual and spot with pre-market price reference',
      'OKX to delist several stablecoin pairs for EU users to comply with MiCA',
    ],
  ],
  [
    'coinbase',
    [
      'Coinbase reports quarterly revenue of $2.2 billion, beating estimates',
      'Coinbase adds support for cbBTC on Solana',
      'Coinbase Wallet will shut down its legacy browser extension next quarter',
    ],
  ],
  [
    'binance',
    [
      'Binance will list AI agent token VIRTUAL spot pairs with the seed tag',
      'Binance will perform wallet maintenance on the Ethereum network; deposits and withdrawals paused for 1 hour',
      'Binance will remove margin pairs for ZEC, DASH and XMR following periodic review',
      'Binance Futures adjusts leverage and margin tiers for 1000PEPE, 1000SHIB and WIF perpetual contracts',
      'Binance will list Ethena (ENA) on HODLer Airdrops; spot trading opens later today',
      'Binance adds new fiat pairs for SOL, XRP and DOGE',
      'Binance will support the Polygon network upgrade and hard fork',
    ],
  ],
];

/** Interleaves the authors (a fixed shuffle) so the feed mixes sources like a real one. */
function interleave(groups: typeof BY_AUTHOR): ReplayEntry[] {
  const flat: ReplayEntry[] = [];
  for (const [author, lines] of groups) {
    for (const line of lines) {
      flat.push(typeof line === 'string' ? [author, line] : [author, line[0], line[1]]);
    }
  }
  let seed = 20240611;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = flat.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const a = flat[i] as ReplayEntry;
    flat[i] = flat[j] as ReplayEntry;
    flat[j] = a;
  }
  return flat;
}

export const REPLAY_ITEMS: readonly ReplayEntry[] = interleave(BY_AUTHOR);
