import type { ReactNode } from 'react';
import { Link } from '../Link';

/** The frame of the standalone pages (reset password, payment results): a card on the dark background. */
export function PageShell({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="page">
      <div className="page-card">
        <Link to="/" className="page-brand">
          Signal Console
        </Link>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
