import type { RetractionKind, Signal } from '../../contracts/signals';

/** How a card names what a retraction said of its story. */
export const RETRACTION_KIND_TEXT: Readonly<Record<RetractionKind, string>> = {
  denial: 'denied',
  correction: 'corrected',
  withdrawal: 'withdrawn',
  compromised: 'hacked or unauthorized account',
};

/** What a card shows for a retraction: the mark on the retracted story, the link on the retraction. */
export interface RetractionView {
  /**
   * On a retracted card: "RETRACTED", and the text shown on hover (the retraction's own words). On a
   * card only a less trusted source takes back: "DISPUTED", with who says so; nothing was closed on it.
   */
  mark: { label: 'RETRACTED' | 'DISPUTED'; by: string; hover: string } | null;
  /** On a retraction linked to its story: "retracts #12", pointing at that card. */
  link: { label: string; target: string } | null;
}

export function retractionView(s: Signal): RetractionView {
  const r = s.retraction ?? null;
  const d = s.dispute ?? null;
  return {
    mark:
      r !== null
        ? {
            label: 'RETRACTED',
            by: r.signal_id,
            hover: `Retracted by #${r.signal_id} (${RETRACTION_KIND_TEXT[r.kind]}): ${r.reason}`,
          }
        : d !== null
          ? {
              label: 'DISPUTED',
              by: d.signal_id,
              hover: `Disputed by #${d.signal_id}, from ${d.source_name}, a less trusted source (${RETRACTION_KIND_TEXT[d.kind]}; unconfirmed): ${d.reason}`,
            }
          : null,
    link: s.retracts == null ? null : { label: `retracts #${s.retracts}`, target: s.retracts },
  };
}
