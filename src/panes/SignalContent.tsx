import { useState } from 'react';
import { mediaSrc, isVideo, shownContent } from '../services/feed/content';

/** Content as text with safe links (never HTML), cut at 280 characters behind Read More / Show Less. */
export function SignalText({ text }: { text: string }) {
  const [expanded, setExpanded] = useState(false);
  const { parts, long } = shownContent(text, expanded);
  return (
    <div className="card-content" data-testid="card-content">
      {parts.map((part, i) =>
        part.kind === 'text' ? (
          <span key={i}>{part.text}</span>
        ) : (
          <a
            key={i}
            href={part.href}
            target="_blank"
            rel="noopener noreferrer"
            onClick={(e) => e.stopPropagation()}
          >
            {part.text}
          </a>
        ),
      )}
      {long ? (
        <button
          type="button"
          className="read-more"
          onClick={(event) => {
            event.stopPropagation();
            setExpanded(!expanded);
          }}
        >
          {expanded ? 'Show Less' : 'Read More'}
        </button>
      ) : null}
    </div>
  );
}

/** Images and videos, through the image proxy when they are remote. */
export function SignalMedia({ urls }: { urls: readonly string[] }) {
  const shown = urls.flatMap((url) => {
    const src = mediaSrc(url);
    return src === null ? [] : [{ url, src }];
  });
  if (shown.length === 0) return null;
  return (
    <div className="card-media">
      {shown.map(({ url, src }) =>
        isVideo(url) ? (
          <video key={url} src={src} controls muted preload="metadata" />
        ) : (
          <img key={url} src={src} alt="" loading="lazy" decoding="async" />
        ),
      )}
    </div>
  );
}
