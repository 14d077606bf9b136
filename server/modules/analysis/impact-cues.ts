/**
 * The cues the impact model reads beside the event (docs/labelling.md §3): each a phrase that makes the
 * same event move more or less. `impact-features.ts` turns them into the model's columns, and the
 * rule-based estimate in `impact.ts` (one of those columns) multiplies by them.
 */
/** Product additions for coins already trading (margin, earn, loans, new quote pairs): far from a listing. */
export const LISTING_MINOR =
  /\b(?:margin|borrowable|simple earn|earn products?|loans?|collateral|fiat pairs|new (?:fiat |spot )?pairs|usdc pairs|copy[- ]trading|convert|launchpool|hodler airdrops|options|trading bots|order types|support for|staking product)\b/;
/** A spot listing announced beside those products ("will list X on HODLer Airdrops and open spot trading"). */
export const LISTING_FULL = /\bwill (?:list|add)\b[^.;]*\b(?:spot|seed tag)\b|\bopens? spot trading\b/;
/** A coin added to a venue's listing roadmap: often most of a listing's move, but not yet trading. */
export const ROADMAP = /\broadmap\b/;
/** Wallet maintenance and network upgrades announced in advance: transfers pause, nothing is wrong. */
export const SCHEDULED =
  /\bscheduled\b|\bmaintenance\b|\b(?:network|system|wallet) upgrade\b|\bhard fork\b|\bbriefly\b/;
/** A hack of a front-end, a mailbox or an account rather than of funds, with no amount stated. */
export const HACK_MINOR =
  /\bfront-?end\b|\bdns\b|\bphish\w*|\bimpersonat\w*|\bemail\b|\b(?:x|twitter|discord|telegram) account\b/;
/** A sum a firm must pay: the dollar amount of a regulation item counts only then. */
export const PENALTY =
  /\bfine[sd]?\b|\bpenalt\w+|\bforfeit\w*|\bto pay\b|\bpays?\b|\bsettle\w*|\bdisgorge\w*/;
/** Totals held, not money moving: an ETF's assets are no flow. */
export const ETF_HOLDINGS = /\bin assets\b|\bassets under management\b|\baum\b/;
/** A watch label or a partial removal rather than a delisting. */
export const DELISTING_MINOR =
  /\bremoval of (?:spot )?trading pairs\b(?![^.;]*\bdelist)|\bmonitoring tag\b|\binvestment (?:caution|warning)\b|\blimit-only\b|\bmargin pairs\b|\bstablecoin pairs\b/;
/** Filings, collapses and freezes, as against the long tail of estates, repayments and deadlines. */
export const INSOLVENCY_CORE =
  /\bbankrupt\w*|\binsolven\w*|\bchapter 11\b|\bliquidation\b|\bcollapses?\b|\bin default\b/;
export const INSOLVENCY_TAIL =
  /\bestate\b|\btrustee\b|\bcreditors?\b|\brepay\w*|\bdistribution\b|\binvestigation\b/;
/** Percent moves of something other than a price (volume, addresses, open interest). */
export const NOT_PRICE =
  /\bvolume\b|\baddresses\b|\bopen interest\b|\bhashrate\b|\bimbalanced\b|\bfunding\b|\bsupply\b|\btvl\b/;

/** "jumps 14%", "down 9%": a price move stated beside another event. */
export const PRICE_MOVE =
  /\b(?:jumps?|surges?|soars?|falls?|drops?|plunges?|slides?|tumbles?|rall\w*|sinks?|climbs?|rises?|gains?|up|down|rips?|dumps?|pumps?)\b[^.;\d]{0,12}[+-]?(\d+(?:\.\d+)?)%/g;
/** A perpetual contract for a coin, without a spot market. */
export const PERP_ONLY = /\b(?:perpetual|perps?|futures|swap)\b/;

/** Decisions by a regulator or a court, against or for a firm or a market. */
export const REGULATOR_DECISION =
  /\b(?:sec|cftc|doj|justice department|securities and exchange commission|the commission|fca|esma|sfc|court|judge|jury|regulators?|treasury|government|prosecutors|police)\b[^.;]{0,60}\b(?:sues?|sued|charges?|charged|approv\w*|bans?|banned|dismiss\w*|drops?|rul\w+|fines?|orders?|sanctions?|arrest\w*|raid\w*|sentenc\w*|grants?|licen[cs]\w*)\b|\b(?:arrested|detained|sentenced|pleads? guilty|convicted|pardoned|bans? crypto|ban on)\b|\bfound [^.;]{0,30}\bguilty\b|\bdismissed\b/;
export const ETF_DECISION =
  /\bapprov\w*|\breject\w*|\bgreen light\b|\bgreen-?lit\b|\bsigned off\b|\bden(?:y|ies|ied)\b|\bgrant(?:s|ed|ing)\b/;
export const MACRO_SURPRISE =
  /\bunexpected\w*|\bsurpris\w*|\b(?:bigger|larger|smaller|hotter|cooler|more|less|higher|lower|worse|better) than (?:expected|forecasts?|estimates)\b|\bthan forecast\b|\bmiss(?:es|ed)? (?:estimates|expectations)\b|\bbeats? (?:estimates|expectations)\b|\b\d+ basis points\b|\bhikes?\b|\bcuts rates\b|\b\d+% tariffs?\b/;

/** A new record: "all-time high", "record high", "new ATH". */
export const ALL_TIME_HIGH = /\ball[- ]time highs?\b|\brecord highs?\b|\bnew (?:ath|record)\b|\bath\b/;
/** The person at the head of a venue or a protocol. */
export const FOUNDER = /\bfounder\b|\bco-?founder\b|\bceo\b|\bchief executive\b|\bformer (?:head|boss)\b/;
/** What happens to a person in court or in custody. */
export const PERSONAL_CASE =
  /\barrest\w*|\bdetain\w*|\bcharged\b|\bindict\w*|\bpleads?\b|\bpleaded\b|\bguilty\b|\bsentenc\w*|\bextradit\w*|\bsettle\w*|\bsteps? down\b|\bprison\b|\bjail\w*/;
/** A state holding or adopting a coin. */
export const STATE_RESERVE =
  /\b(?:strategic|national|sovereign|federal|state) (?:bitcoin |crypto |digital asset )?reserves?\b|\blegal tender\b|\bexecutive order\b/;
/** The largest venues and lenders: their failures move the whole market. */
export const TOP_VENUE =
  /\b(?:binance|coinbase|okx|bybit|upbit|kraken|bitget|htx|huobi|kucoin|gate\.io|ftx|celsius|genesis|bitfinex|mt\.? ?gox|blockfi|voyager|terra(?:form)?)\b/;
/** A stablecoin or its issuer named. */
export const STABLECOIN =
  /\b(?:usdt|usdc|tether|circle|dai|ust|terrausd|usde|ethena|fdusd|tusd|usdd|pyusd|busd|frax|stablecoins?)\b/;
/** A price a little below a dollar: how far a peg broke. */
export const SUB_DOLLAR = /\$0\.(\d{2})\b/;
/** Words of a first or a landmark. */
export const RECORD = /\b(?:largest|biggest|record|first-ever|all-time|historic|landmark)\b/;
/** The whole market, not one coin. */
export const MARKET_WIDE = /\b(?:all crypto|entire market|crypto market|across the bloc|nationwide)\b/;
/** A spot market named. */
export const SPOT = /\bspot\b/;
