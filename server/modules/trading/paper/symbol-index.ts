/** A book of resting orders, each on one symbol (conditional orders, limit orders). */
export interface SymbolBook {
  resting: ReadonlyMap<string, { symbol: string }>;
}

/**
 * Which accounts hold resting orders on which symbols, kept from each account's book as this process
 * loads or changes it: a move of the prices asks only those accounts, and nothing at all when no account
 * has an order on the symbols that moved.
 */
export class SymbolIndex<B extends SymbolBook> {
  private readonly bySymbol = new Map<string, Set<string>>();
  private readonly byAccount = new Map<string, { book: B; symbols: ReadonlySet<string> }>();

  update(account: string, book: B): void {
    const known = this.byAccount.get(account);
    if (known === undefined ? book.resting.size === 0 : known.book === book) return;
    const symbols = new Set([...book.resting.values()].map((o) => o.symbol));
    for (const symbol of known?.symbols ?? []) {
      if (symbols.has(symbol)) continue;
      const accounts = this.bySymbol.get(symbol);
      accounts?.delete(account);
      if (accounts?.size === 0) this.bySymbol.delete(symbol);
    }
    for (const symbol of symbols) {
      let accounts = this.bySymbol.get(symbol);
      if (!accounts) this.bySymbol.set(symbol, (accounts = new Set()));
      accounts.add(account);
    }
    if (symbols.size === 0) this.byAccount.delete(account);
    else this.byAccount.set(account, { book, symbols });
  }

  accountsOn(moved: ReadonlySet<string>): Set<string> {
    const accounts = new Set<string>();
    if (this.bySymbol.size === 0) return accounts;
    if (moved.size <= this.bySymbol.size) {
      for (const symbol of moved)
        for (const account of this.bySymbol.get(symbol) ?? []) accounts.add(account);
    } else {
      for (const [symbol, holders] of this.bySymbol) {
        if (moved.has(symbol)) for (const account of holders) accounts.add(account);
      }
    }
    return accounts;
  }
}
