import { describe, expect, it } from 'vitest';
import { errorMessage, errorText, joinSentences } from './errors';

describe('errorText (docs/product.md §8)', () => {
  it('joins the msg of each detail item with ". "', () => {
    const body = {
      detail: [
        { loc: ['body', 'email'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'amount'], msg: 'Must be positive', type: 'value_error' },
      ],
    };
    expect(errorText(body, 'fallback')).toBe('Field required. Must be positive');
  });

  it('shows a string detail as is', () => {
    expect(errorText({ detail: 'Insufficient margin' }, 'fallback')).toBe('Insufficient margin');
  });

  it('falls back for anything else', () => {
    expect(errorText({ message: 'nope' }, 'Failed to place order.')).toBe('Failed to place order.');
    expect(errorText(null, 'Failed to place order.')).toBe('Failed to place order.');
    expect(errorText({ detail: 42 }, 'Failed to place order.')).toBe('Failed to place order.');
  });

  it('reads the body of a thrown call error', () => {
    expect(errorMessage({ status: 400, data: { detail: 'Bad symbol' } }, 'x')).toBe('Bad symbol');
    expect(errorMessage(new Error('network down'), 'Failed to fetch positions.')).toBe(
      'Failed to fetch positions.',
    );
  });
});

describe('joinSentences', () => {
  it('joins server messages with ". " without doubling the periods they end with', () => {
    expect(joinSentences(['Too small.', 'Required.'])).toBe('Too small. Required.');
    expect(joinSentences(['Too small', 'Required'])).toBe('Too small. Required');
    expect(joinSentences(['One.', ' ', 'Two'])).toBe('One. Two');
    expect(
      errorText(
        {
          detail: [
            { loc: ['body'], msg: 'Bad amount.', type: 'x' },
            { loc: ['body'], msg: 'Bad side.', type: 'x' },
          ],
        },
        'f',
      ),
    ).toBe('Bad amount. Bad side.');
  });
});
