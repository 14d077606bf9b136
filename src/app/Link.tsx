import type { MouseEvent, ReactNode } from 'react';
import { useServices } from './AppContext';

/** An in-app link: a real <a href> that navigates through the router without reloading. */
export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  const { router } = useServices();
  const onClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    router.navigate(to);
  };
  return (
    <a href={to} onClick={onClick} className={className}>
      {children}
    </a>
  );
}
