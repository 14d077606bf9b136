import type { EventType } from '../../../src/contracts/analysis';

/**
 * Event-type rules over the lowercased text, in priority order: the first rule whose `trigger` matches
 * names the event (so "delists after hack" is a delisting, docs/labelling.md §4). Within a rule the
 * first matching `pos`/`neg`/`neutral` pattern gives the direction; `dir` is the default.
 * `strong` rules are confident enough to override the sentiment model when neither hedged nor denied.
 */
export interface EventRule {
  type: EventType;
  trigger: RegExp;
  dir: -1 | 0 | 1;
  /** Checked in this order: neutral, negFirst, pos, then neg. */
  neutral?: RegExp;
  /** A negative reading that wins over `pos` ("agrees to pay $4B in a settlement"). */
  negFirst?: RegExp;
  pos?: RegExp;
  neg?: RegExp;
  strong: boolean;
  /** Confident when `pos` or `neg` matched, though not `strong` ("completes its upgrade"). */
  strongWhenExplicit?: boolean;
  /** `strongWhenExplicit` only with this in the text too (a price move needs a figure to be sure of). */
  sureOnlyWith?: RegExp;
  /** The rule does not apply when this matches ("chosen by a central bank" is no regulation). */
  unless?: RegExp;
}

const EXCHANGES = 'binance|coinbase|kraken|okx|bybit|bitstamp|bitfinex|upbit|gemini|exchanges?';

export const EVENT_RULES: readonly EventRule[] = [
  {
    type: 'depeg',
    trigger:
      /\bde-?peg\w*|\bpeg\b|\bwobbl\w+ (?:at|to) \$?0\.9|\b(?:stablecoin|usd\w?|dai|usde|steth)\b[^.;]{0,30}\b(?:slip|slid|fall|fell|drop|trad)\w* (?:to|at) \$?0\.[0-9]+|\bdiscount to eth\b|\bstablecoin\b[^.;]{0,30}\b\d{2} cents\b/,
    dir: -1,
    neutral: /\bnot a depeg\b|\bpeg (?:rock )?solid\b|\bbad quote\b|\bnormal noise\b|\brecover\w* within\b/,
    pos: /\bregains?\b|\brestored\b|\bback to \$?1\b|\bre-?peg|\bback to (?:its |the )?peg\b/,
    strong: true,
  },
  {
    type: 'withdrawals_halted',
    trigger:
      /\b(?:halt|paus|suspend|freez|froze|resum|reopen|restor)\w*\b[^.;]{0,40}\bwithdrawals?\b|\bwithdrawals?\b[^.;]{0,25}\b(?:halted|paused|suspended|frozen|reopen\w*|resum\w*)|\bsuspends trading, deposits and withdrawals\b|\bstop(?:s|ped)? (?:processing )?withdrawals\b/,
    dir: -1,
    neutral: /\bmaintenance\b|\bnetwork upgrade\b|\bscheduled\b|\bupgrade\b|\bhard fork\b/,
    pos: /\breopen\w*|\bresum\w*|\brestored\b|\bintact\b|\blifts?\b|\blifted\b/,
    strong: true,
  },
  {
    type: 'insolvency',
    trigger:
      /\bbankrupt\w*|\binsolven\w*|\bchapter 11\b|\bliquidation\b(?! cascade)(?=[^.;]*\bcourt\b)|\b(?:ordered |orders? [^.;]{0,40})?into liquidation\b|\bgo(?:es|ing)? under\b|\b(?:delayed|halted|frozen) redemptions\b|\bjudicial management\b|\bin default\b|\bcollapses?\b|\bshuts? down and owes\b|\bcuts? \d+% of staff\b|\bstruggling to pay\b|\brepay\w*|\bcreditors\b|\bdistribution emails\b/,
    dir: -1,
    neutral: /\bno change\b|\bapproves? .*plan\b|\bpayouts? to start\b/,
    pos: /\bin full\b|\brelieved\b/,
    strong: true,
  },
  {
    // Job cuts and shutdowns from a downturn: distress, bad for the market; rehiring is the reverse.
    type: 'other',
    trigger:
      /\blays? off\b|\blaid off\b|\blayoffs?\b|\bcut(?:s|ting)? (?:\d+% of (?:its )?)?(?:jobs|staff|workforce|employees)\b|\bto cut \d+% of\b|\b(?:cut|cuts|cutting|shed|sheds) [\d,]+ (?:jobs|staff|employees)\b|\bshuts? down\b(?=[^.;]*\b(?:citing|after|amid|drought|losses|downturn)\b)|\bwind(?:s|ing)? down operations\b|\brehir\w*/,
    dir: -1,
    pos: /\brehir\w*|\bexpands?\b/,
    strong: true,
  },
  {
    type: 'hack',
    trigger:
      /\bhack(?!athon)\w*|\bexploit\w*|\bdrain\w*|\bstole\b|\bstolen\b|\bsteal(?:s|ing)?\b|\bheist\b|\bbreach\w*|\bcompromised\b|\bphish\w*|\brugged\b|\brug pull\b|\bbackdoor\w*|\bhijack\w*|\battackers?\b|\btheft\b|\bmalware\b|\bkey leak\b|\bsecurity incident\b|\bunauthori[sz]ed access\b|\bsupply-chain attack\b|\b(?:flash[- ]loan|oracle|reentrancy|governance|51%|dns|front-?end|price[- ]manipulation) (?:attack|manipulation|hijack)\w*|\bsuspicious (?:transactions|outflows|transfers)\b|\b(?:taken|siphoned|lost|missing) from (?:a|its|the|their) (?:hot|cold) wallets?\b|\bkeys? [^.;]{0,40}\bleaked\b|\bbad debt\b/,
    dir: -1,
    neutral:
      /\bi got hacked lol\b|\bpostmortem\b|\bimpersonat\w+|\bdo not share\b|\bnever been hacked\b|\bscam cost a user\b|\bmoved [^.;]{0,30}\bthrough a mixer\b/,
    pos: /\breturns? [^.;]{0,20}\bfunds\b|\baccepts? a bounty\b/,
    strong: true,
  },
  {
    type: 'delisting',
    trigger: new RegExp(
      `\\bdelist\\w*|\\bremoval of\\b|\\bremoves?\\b[^.;]{0,30}\\bsupport\\b|\\bsuspends? trading\\b|\\bsuspend trading\\b|\\btrading to be suspended\\b|\\bmonitoring tag\\b|\\binvestment (?:warning|caution)\\b|\\blimit-only\\b|\\bremoves? [^.;]{0,30}\\bpairs\\b|\\bfor caution\\b|\\bend(?:s)? trading support\\b|\\b(?:end|termination|cessation) of trading support\\b|\\bterminat\\w+ trading support\\b|\\bno longer be supported\\b|\\bto end \\w+ trading\\b|\\bceas\\w+ [^.;]{0,20}support\\b|\\bpull(?:s|ing)? [^.;]{0,20}(?:support|margin|futures|perps)\\b|\\bto drop \\$?\\w+\\b|\\b(?:${EXCHANGES})[^.;]{0,20}\\bsuspends? [a-z0-9]+-(?:eur|gbp|usd)\\b`,
    ),
    dir: -1,
    pos: /\brevers\w+ decision\b|\blimit-only mode (?:has )?ended\b|\bis now live\b|\blifts? [^.;]{0,20}\b(?:warning|caution|tag)\b|\blifted\b|\bfull trading\b|\btrading (?:is )?(?:enabled|resumed|restored)\b/,
    strong: true,
  },
  {
    type: 'etf',
    trigger:
      /\betfs?\b|\betps?\b|\bexchange-traded (?:funds?|products?)\b|\b(?:spot )?(?:bitcoin|ether|solana|xrp|crypto|digital[- ]asset) (?:funds|trusts?|etps)\b|\bspot (?:\w+ )?trusts?\b|\bshares of (?:an? |the )?(?:spot )?[\w-]+ (?:staking )?(?:trusts?|funds?)\b|\bishares\b|\b19b-4\b|\bs-1\b|\bibit\b|\bgbtc\b|\betha\b|\bethe\b/,
    dir: 0,
    neutral:
      /\bflat\b|\bnet zero\b|\bnothing to see\b|\bnothing official\b|\bstopped counting\b|\bignore\b|\bsmall net\b|\bmodest\b|\broughly balanced\b|\bexpect\w* (?:the )?sec to rule\b/,
    negFirst:
      /\bsheds?\b|\bbleed\w*|\bhemorrhag\w*|\b(?:pull|yank)\w* [^.;]{0,30}\bfrom\b|\bden(?:y|ies|ied)\b|\bdesignation of a longer period\b|\blonger period\b/,
    neg: /\breject\w*|\bdelay\w*|\bpostpone\w*|\bextends? review\b|\boutflows?\b|\bbleed\w*|\bwithdraw\w*|\bpushed (?:to|back)\b|\bredemptions\b/,
    pos: /\borders? (?:the )?sec to review\b|\bapprov\w*|\binflows?\b|\bpours? into\b|\btook in\b|\bfiles?\b|\bfiling\b|\bfiled\b|\blaunch\w*|\bpulls? in\b|\bgreen light\b|\bpreparing\b|\bsigned off\b|\bgreen-?lit\b|\battract\w*|\bdraws?\b|\bstake in\b|\bsurpass\w*|\bpass(?:es|ed)? \$|\blargest \w+ launch\b/,
    strong: true,
  },
  {
    type: 'listing',
    trigger: new RegExp(
      `\\bwill list\\b|\\blists?\\b|\\blisted\\b|\\blisting\\b|\\brelist\\w*|\\blaunchpool\\b|\\bnow (?:available|live|tradable)\\b|\\bis launching on\\b|\\bis (?:now )?live on (?:${EXCHANGES})\\b|\\btrading will begin\\b|\\bgoes live on (?:${EXCHANGES})\\b|\\b(?:adds?|adding|launch\\w*|open\\w*)\\b[^.;]{0,60}\\b(?:trading|pairs?|markets?|futures|perps?|perpetual|spot|margin|support for|krw|options|copy trading|convert|earn|custody)\\b|\\bperps? (?:just )?(?:live|listed)\\b|\\bgets [^.;]{0,20}(?:futures|perps|listing)\\b|\\blands on\\b|\\b(?:perps|futures) (?:now )?on\\b|\\badded to (?:${EXCHANGES})\\b|\\badding \\$|\\bmarket support\\b|\\bnew digital assets?\\b|\\badded to (?:the |its )?(?:listing )?roadmap\\b|\\b(?:to|on) (?:the |its )?(?:listing )?roadmap\\b|\\btrading support\\b|\\bspot trading live\\b|\\bfull[- ]trading mode\\b|\\badds? [^.;]{0,40}\\bto (?:${EXCHANGES})\\b|\\bsupports? [^.;]{0,40}\\b(?:spot )?trading\\b`,
    ),
    dir: 1,
    neutral:
      /\bcollateral assets?\b|\bportfolio margin\b|\bopen interest\b|\bopens? an? \$|\blisting fees\b|\btrading bots\b|\bleverage (?:&|and) margin tiers\b|\border types\b|\bstaking\b.*\b(?:trading unchanged|no trading changes)\b|\bwill binance list my\b|\bcopy-trading\b|\bipo\b|\bgo(?:es|ing)? public\b|\b(?:potential|possible|planned|stock|share) (?:u\.s\. |us |public )?listing\b/,
    strong: true,
  },
  {
    type: 'liquidation',
    trigger:
      /\bliquidat\w+|\brekt\b|\bshort squeeze\b|\bsqueez\w+|\bshorts get wrecked\b|\b(?:shorts?|longs?) (?:lose|lost|wiped|cooked|obliterated)\b|\blongs? [^.;]{0,10}\bwiped\b/,
    dir: 0,
    neutral: /\beither way\b|\bevenly\b|\bboth sides\b|\blesson learned\b/,
    pos: /\bshorts?\b/,
    neg: /\blongs?\b|\bplunges?\b|\bcascade\b|\blos[et]\b|\bwip\w+|\bwipeout\b|\btraders were liquidated\b|\btotal liquidations\b|\bemo_blood\b|\bsuffer\w*|\bshock\b|\bcrash\w*|\bplung\w*|\btumbl\w*|\bsell-?off\b/,
    strong: true,
  },
  {
    type: 'unlock',
    trigger: /\bunlock\w*|\bvesting\b|\bcliff\b|\blockups?\b|\bairdrop\b[^.;]{0,40}\b(?:dump|hit)/,
    dir: -1,
    neutral: /\bpriced in\b|\bnon-event\b|\bunchanged\b|\btracker\b|\bnothing new\b|\busual\b/,
    pos: /\bdelay\w*|\bpostpone\w*|\bextends?\b|\blengthens?\b|\bpushed back\b|\bpushed [^.;]{0,25}\bback\b|\bcut by\b/,
    strong: true,
  },
  {
    type: 'whale_transfer',
    trigger: new RegExp(
      `\\btransferred from\\b|\\bwhale\\b|\\bdeposit\\w* [^.;]{0,40}\\bto (?:${EXCHANGES})|\\b(?:moves?|moved|sends?|sent)\\b [^.;]{0,10}\\d[^.;]{0,40}\\b(?:to|between)\\b|\\bsells? \\d[\\d,.]*\\w* (?:btc|eth)\\b|\\bdumped\\b[^.;]{0,30}\\binto\\b|\\bexchange (?:net )?(?:outflows?|inflows?|reserves?)\\b|\\bexchange \\w+ reserves?\\b|\\b(?:moved|sent|withdraws?) (?:from|to) an? (?:major )?exchange\\b|\\bto an? (?:major )?exchange\\b|\\bholders? distribute\\b|\\badded [\\d,]+ (?:btc|eth)\\b|\\baccumulates?\\b|\\bsold more coins\\b|\\bminers? (?:reserves?|sold|send)\\b|\\breserves? on (?:centrali[sz]ed )?exchanges\\b`,
    ),
    dir: 0,
    neutral:
      /\bunknown wallet to unknown wallet\b|\bits own\b|\binternal\b|\bnew multisig\b|\bnot a sale\b|\bgrants\b|^\W*(?:emo_\w+\s+)*[\d,.]+ #?(?:usdt|usdc|dai|fdusd|usde|pyusd|busd|tusd)\b/,
    pos: new RegExp(
      `\\bfrom #?(?:${EXCHANGES}) to unknown\\b|\\bwithdr[ae]w\\w*|\\baccumulat\\w*|\\bcold storage\\b|\\bstaked it\\b|\\boff (?:${EXCHANGES})\\b|\\bnet outflows?\\b|\\breserves? [^.;]{0,30}\\b(?:lowest|low|drop\\w*|f[ae]ll\\w*|declin\\w+)\\b|\\bfrom an? exchange\\b|\\badded [\\d,]+\\b`,
    ),
    neg: new RegExp(
      `\\bto #?(?:${EXCHANGES}|coinbase prime)\\b|\\bdeposit\\w*|\\bdump\\w*|\\bsells?\\b|\\bsold\\b|\\bsale\\b|\\bto an? (?:major )?exchange\\b|\\bdistribut\\w+|\\bmarket maker\\b`,
    ),
    strong: false,
  },
  {
    // "1,000,000,000 USDT minted at Tether Treasury": an issuer's supply bookkeeping, no direction.
    type: 'whale_transfer',
    trigger: /\b(?:minted|burned|burnt) at (?:the )?(?:tether|usdc|usdt|circle|paxos) treasury\b/,
    dir: 0,
    neutral: /\btreasury\b/,
    strong: true,
    strongWhenExplicit: true,
  },
  {
    type: 'buyback_burn',
    trigger: /\bbuy-?backs?\b|\bbuy back\b|\bbought back\b|\bburns?\b|\bburned\b|\bburn rate\b/,
    dir: 1,
    neutral: /\bmeaningless\b|\bnothing unusual\b/,
    neg: /\bpauses?\b|\bhalts?\b|\bstops?\b/,
    strong: true,
    strongWhenExplicit: true,
  },
  {
    type: 'outage',
    trigger:
      /\boutage\b|\bgoes down\b|\bwent down\b|\bhalts? block production\b|\bhalt(?:s|ed)? (?:the )?network\b|\bnetwork (?:stall|halt|pause)\w*|\bstalls?\b|\bloses? finality\b|\bfinality issue\b|\bsequencer down\b|\boffline\b|\bdown again\b|\bdowntime\b|\bhalted for\b|\bconsensus (?:issue|bug|paused)\b|\bsubnet [^.;]{0,20}halted\b|\bback online\b|\bpaused \d+ min|\binterruption\b|\bfinality (?:is )?back\b|\b(?:app|site|website|api|infura|dapps?) (?:is |are )?down\b|\bdown for (?:many|some|all)\b|\bblocks are being produced again\b|\bstopped (?:processing|producing)\b|\bnot producing blocks\b|\bblock production (?:stopped|halted|stalled|halts?)\b|\bblocks? stall\w*/,
    dir: -1,
    neutral: /\bresolved\b|\bno action needed\b|\bnvm\b|\bscheduled\b|\bunaffected\b/,
    pos: /\bback online\b|\brestart complete\b|\bprocessing normally\b|\bresum\w*|\bback up\b|\b(?:produc\w* blocks|working|up) again\b|\bpatched\b/,
    strong: true,
  },
  {
    type: 'regulation',
    trigger:
      /\b(?:bans?|banned|banning|outlaws?|outlawed|prohibits?|prohibited|criminali[sz]\w+)\b[^.;]{0,40}\b(?:crypto\w*|bitcoin|payments?|trading|mining|stablecoins?|exchanges?|tokens?)\b/,
    dir: -1,
    pos: /\blifts? (?:the |its )?ban\b|\bban (?:is |was )?lifted\b|\bends? (?:the |its )?ban\b|\brevers\w+ (?:the |its )?ban\b/,
    strong: true,
  },
  {
    type: 'adoption',
    trigger:
      /\b(?:buys?|buying|bought|purchas\w*|acquires?|sells?)\b[^.;]{0,30}\b(?:bitcoin|btc|eth|ether|sol)\b|\b(?:eth|btc|sol|bitcoin|solana|\$\w+) treasury\b|\btreasury reserve\b|\bstrategic [\w ]{0,12}reserve\b|\baccepts?\b|\bpayments?\b|\btokeni[sz]ed\b|\breserve asset\b|\bholds? [\d,]+ btc\b|\bassets? under (?!pressure)|\bsurpasses\b|\bnfts? (?:live|program)\b|\bcheckout\b|\bexclusive blockchain\b|\bmoves? [^.;]{0,30}\brecords to\b|\b(?:add\w*|buy\w*|hold\w*)\b[^.;]{0,20}\b(?:bitcoin|btc|ether|eth)\b[^.;]{0,20}\b(?:balance sheet|reserves?|treasury)\b|\bbitcoin reserve\b|\bcrypto payouts?\b|\b(?:stablecoin|usdc) settlement\b|\b(?:ends?|ended|winds? down|discontinu\w+|shuts? down)\b[^.;]{0,40}\b(?:pilot|platform|programme|program|points|loyalty|nfts?|web3|rewards)\b|\b(?:treasury|balance sheet) asset\b|\b(?:can (?:now )?be |now )?paid (?:in|with)\b|\bpayouts? (?:in|on|with)\b|\bdefault for [^.;]{0,20}\b(?:payments?|payouts?)\b|\b(?:as|for) (?:margin )?collateral\b|\b(?:buys?|bought|buying|purchas\w*)\b[^.;]{0,30}\b(?:worth )?of \$?[a-z]{2,10}\b(?! (?:shares|stock|bonds?|treasur\w+))/,
    dir: 1,
    neutral: /\bnew logo\b|\brecycled\b|\bno change\b/,
    neg: /\bban\b|\bsells?\b|\bsold\b|\bshuts? down\b|\bno plans\b|\bends?\b|\bended\b|\bwinds? down\b|\bdiscontinu\w+|\bstop\w* buying\b|\breject\w*/,
    strong: true,
  },
  {
    type: 'regulation',
    unless: /\b(?:chosen|picked|selected|tapped) by\b|\btaps\b|\bpartners? with\b/,
    trigger:
      /\bsec\b|\bcftc\b|\bdoj\b|\bsecurities and exchange commission\b|\bthe commission\b|\b(?:fca|esma|sfc|finma|bafin|fincen|ofac|finra|mas|fsc|asic|amf|consob)\b|\bregulat\w+|\bcourt\b|\bjudge\b|\blaw(?:s|makers)?\b|\bbill\b|\bcongress\b|\bsenat\w+|(?<!tether |usdc |usdt )\btreasury\b(?! yields?| management| reserve| compan\w+| firm| strateg\w+| assets?| income| bills?| holdings| bonds?)|\bban(?:s|ned)?\b|\blawsuit\b|\bsues?\b|\bgensler\b|\bmica\b|\baml\b|\bexecutive order\b|\blegal tender\b|\blicen[cs]e\w*|\bsubpoena\b|\bprobe\b|\bclass action\b|\bcentral bank\b|\bgovernment\b(?! shutdown)|\barrest\w*|\bdetain\w*|\bpolice\b|\bprosecutors?\b|\bsentenced\b|\bpardon\w*|\bsanction\w*|\bindict\w*|\bextradit\w*|\blegal framework\b|\bframework for\b|\bplead\w* guilty\b|\bregulators?\b|\bclarity act\b|\bwells notice\b|\bprison\b|\bguilty\b|\bsettlement\b|\btax\b|\bblock access\b|\bcaps? altcoin\b|\bfreeze\b|\bdepartment of justice\b|\bjustice department\b|\bpenalt(?:y|ies)\b|\bfdic\b|\bguidance\b|\bsued\b|\bunlicensed\b|\bcharged\b|\bcharges? (?:against|\w+ with)\b|\bdismiss\w*|\bjury\b|\bverdict\b|\bconvicted\b|\benforcement action\b|\brevok\w*|\blicen[cs]\w*/,
    dir: 0,
    neutral:
      /\bhearing (?:scheduled|today)\b|\bstatus conference\b|\bno vote\b|\bmay or may not\b|\bmostly clarifications\b|\bno policy\b|\bconsultation\b|\broundtable\b|\bnot charged\b|\bhas not charged\b|\b(?:to hold|schedules?) (?:a )?hearing\b|\bhearing on\b/,
    negFirst:
      /\b(?:agrees? to pay|to pay|pays?)\b[^.;]{0,20}\$[\d.]+\s*(?:b|bn|billion|m|million)\b|\bsteps? down\b|\bresign\w*|\bpleads? guilty\b|\barrest\w*|\bdetain\w*|\bsentenced\b|\braid\w*|\bwithout (?:a |an )?(?:\w+ )?licen[cs]e\b|\bunlicensed\b|\bwind down services\b|\bmotion to dismiss (?:is |was )?denied\b|\bden(?:y|ies|ied) [^.;]{0,20}\bmotion to dismiss\b|\bconvicted\b|\bfound [^.;]{0,30}\bguilty\b/,
    pos: /\bnot a security\b|\bnot securities\b|\bpardon\w*|\blifts?\b|\bunfreez\w*|\bsides? with\b|\bin favou?r of\b|\bends? (?:their |its )?(?:legal )?(?:battle|fight|case)\b|\breleased\b|\bcommodity\b|\bapprov\w*|\blegal tender\b|\bframework\b|\blicen[cs]es?\b|\bgrants?\b|\bpass(?:es|ed)\b|\bdismiss\w*|\bdrops? (?:its )?(?:appeal|case|lawsuit)\b|\bcloses? (?:its )?investigation\b|\bwin\b|\bsettle\w*|\blifts? (?:the )?ban\b|\bgreen light\b|\brecogni[sz]\w*|\breserve\b|\breleased\b|\bpause\b[^.;]{0,30}\bcase\b|\bcut\b|\bcutting the tax\b|\ballows?\b|\bwithdraws guidance\b|\bclear rules\b|\bconfirms regime\b|\bexemption\b|\blegalis\w+|\brelease of\b|\badvances\b|\bfinal [^.;]{0,10}rules\b|\bfinali[sz]\w* [^.;]{0,30}\b(?:rules|framework|regime)\b|\bconclude[sd]? (?:its |the )?investigation\b|\bnot (?:intend to )?recommend (?:an )?enforcement\b|\bno enforcement action\b|\brescind\w*|\btoss(?:es|ed)?\b/,
    neg: /\bban\w*|\bsues?\b|\bsued\b|\blawsuit\b|\bcharges?\b|\bcharged\b|\bfines?\b|\bprobe\b|\bsubpoena\b|\bwells notice\b|\bsecurit(?:y|ies)\b|\bunregistered\b|\bguilty\b|\bfraud\b|\bclass action\b|\border\w*\b|\bfreeze\b|\btax hike\b|\bcaps?\b|\bblock\w*|\bcrackdown\b|\bprobe\b|\bshuts? down\b|\brestrict\w*|\brevok\w*|\bwarns?\b|\bwarning\b|\bnot authori[sz]ed\b/,
    strong: true,
  },
  {
    type: 'fundraise',
    trigger:
      /\braises? \$|\braised\b(?! to)|\bseries [a-d]\b|\bseed(?: round)?\b|\bfunding rounds?\b|\bcloses? \$?\d[\w.]* (?:\w+ )?fund\b|\becosystem fund\b/,
    dir: 1,
    neutral: /\byawn\b|\bmixed picture\b|\bflat\b/,
    strong: false,
  },
  {
    type: 'partnership',
    trigger:
      /\bpartner\w*|\bteams? up\b|\bintegrat\w+|\bcollaborat\w+|\bjoins?\b|\bselected for\b|\bsigns? [^.;]{0,30}\bdeal\b|\bpilot\b| x |\bchooses\b|\bgoverning member\b|\btaps?\b|\b(?:chosen|picked|selected) by\b|\badopts?\b/,
    dir: 1,
    neutral: /\bnothing signed\b|\balways talking\b|\bwhile partners talk\b/,
    neg: /\bends?\b|\bended\b|\bwinds? down\b|\bdiscontinu\w+/,
    strong: false,
  },
  {
    type: 'upgrade',
    trigger:
      /\bupgrade\b|\bhard fork\b|\bfork\b|\bmainnet\b|\btestnet\b|\broadmap\b|\bgoes live\b|\bis live\b|\blive on mainnet\b|\bactivat\w+|\bamendment\b|\brelease notes\b|\bv\d[\d.]*\b|\bdevs are cooking\b|\bclient live\b|\blaunch\w* (?:on )?mainnet\b|\bnamechain\b|\bdevs? call\b|\bstaking launch\b|\bdelayed again\b/,
    dir: 1,
    neutral:
      /\bscheduled\b|\bon track\b|\bno date\b|\brelease notes\b|\bno decisions\b|\bjust vibes\b|\bbug fixes\b/,
    neg: /\bdelay\w*|\bpostpone\w*|\bpushed back\b|\bfailed\b|\bpush(?:es|ed)?\b[^.;]{0,30}\b(?:again|back|next year)\b/,
    pos: /\bcomplet\w+|\bgoes live\b|\bis live\b|\bactivat\w+|\bship(?:s|ped)\b|\brolls? out\b|\blaunch(?:es|ed)\b|\bpass(?:es|ed)\b/,
    strong: false,
    strongWhenExplicit: true,
  },
  {
    type: 'macro',
    trigger:
      /\bfed\b|\bfomc\b|\bpowell\b|\bcpi\b|\binflation\b|\bppi\b|\bpce\b|\brate cuts?\b|\brates?\b|\bhikes?\b|\bjobs report\b|\bunemployment\b|\byields?\b|\bdxy\b|\bdollar index\b|\btariffs?\b|\brecession\b|\becb\b|\bbank of japan\b|\bstimulus\b|\bnasdaq\b|\bs&p\b|\bequities\b|\bshutdown\b|\bcarry trade\b|\bretail sales\b|\bfed ?watch\b|\bbowman\b|\bquantitative tightening\b|\brefunding\b|\btrade deal\b|\bpayrolls\b|\bgdp\b|\bjobless claims\b|\bconsumer sentiment\b|\bdebt ceiling\b|\boil\b|\bgold hits\b/,
    dir: 0,
    neutral:
      /\bas expected\b|\bin line\b|\bwhat to watch\b|\bthis week\b|\bsplit on\b|\beither way\b|\bmy cat\b|\bspeakers\b|\bsplit vote\b|\bbalance sheet falls\b|\bgold hits\b/,
    pos: /\bcuts?\b|\bcool\w*|\bfalls? below\b|\bdovish\b|\bends? quantitative tightening\b|\byields? (?:retreat|drop|fall|ease)\w*|\bdollar (?:weak\w*|falls|slides)\b|\bstimulus\b|\bpauses? tariffs\b|\brecord high\b|\bbeat\b|\bvs [\d.]+% expected\b|\bdumping\b|\brisk-on\b|\bbid\b|\bticks? up\b|\bboost\w*/,
    negFirst:
      /\bno (?:rate )?cuts\b|\bdash\w* hopes\b|\b(?:just|only) one cut\b|\bfewer (?:rate )?cuts\b|\bstickier\b/,
    neg: /\bhik\w*|\braises? rates\b|\bhotter\b|\bhot\b|\bhawkish\b|\bnot confident\b|\bhigher-for-longer\b|\btariffs\b|\byields? (?:climb|spike|jump)\w*|\bspikes?\b|\bhigh\b|\bslide\b|\blower\b|\bshutdown\b|\bunwind\w*|\bstick\w+|\bpushed out\b|\bblows past\b|\bonly one cut\b|\bjust one cut\b|-\d/,
    strong: false,
  },
  {
    type: 'price',
    trigger:
      /\b(?:surg|soar|jump|climb|rall|rip(?!ple)|pump|spik|fall|fell|drop|slid|slump|plung|tumbl|crash|dump|nuked|bleed|sink|slip)\w*|\brecord high\b|\ball[- ]time (?:high|low)\b|\bath\b|\breclaims?\b|\bbreak(?:s|ing)? out\b|\bgreen\b|\bflat\b|\bsideways\b|\branging\b|\bsteady\b|\bunchanged\b|\bdoing nothing\b|\blow(?:est)?\b|\bunderperform\w*|\bsell the news\b|[+-]\d+(?:\.\d+)?%|\b(?:up|down) \d+(?:\.\d+)?%|\bboring\b|\blittle changed\b/,
    dir: 0,
    neutral:
      /\bflat\b|\bsideways\b|\branging\b|\bsteady\b|\bsame as\b|\bunchanged\b|\bnothing to see\b|\bzero momentum\b|\bboring\b|\bdoing nothing\b|\bup \d+% then down\b|\bwhere it started\b|\blittle changed\b|\b(?:natural gas|gas|oil|crude|gold|egg|food|home|house) prices\b/,
    pos: /\bsurg\w*|\bsoar\w*|\bjump\w*|\bclimb\w*|\brall\w*|\brip(?:s|ped|ping)?\b|\bpump\w*|\brecord high\b|\ball[- ]time high\b|\bath\b|\breclaims?\b|\bbreak\w* out\b|\bgreen\b|\+\d|\bup \d|\bmoon\b/,
    strongWhenExplicit: true,
    sureOnlyWith:
      /[+-]?\d+(?:\.\d+)?%|\$\d|\b(?:ath|all[- ]time (?:high|low)|record high|little changed|flat|sideways|unchanged)\b/,
    neg: /\bfall\w*|\bfell\b|\bdrop\w*|\bslid\w*|\bslump\w*|\bplung\w*|\btumbl\w*|\bcrash\w*|\bdump\w*|\bnuked\b|\bbleed\w*|\ball[- ]time low\b|\bmulti-year low\b|\blowest\b|-\d|\bdown \d|\bunderperform\w*|\bsell the news\b|\blosing\b/,
    strong: false,
  },
];
