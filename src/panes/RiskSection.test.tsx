import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { recordedRisk } from '../services/rules/testing/serverAnswers';
import { RiskSection } from './RiskSection';

afterEach(cleanup);

/** The risk view over the server's recorded answer: a new paper account's defaults. */
function setup() {
  const r = renderWithServices(<RiskSection />);
  const risk = recordedRisk('risk');
  act(() => r.services.stores.rules.setRisk(risk));
  r.server.on('PUT /rules/risk', (req) => ({
    status: 200,
    body: { ...risk, ...(JSON.parse(req.body ?? '{}') as object) },
  }));
  return r;
}

describe('RiskSection', () => {
  it('says where the default max order comes from', () => {
    setup();
    expect(screen.getByTestId('max-order-basis').textContent).toBe(
      'Max order 50,000 USDT: 5 × your 10,000 paper balance (the default; set your own below).',
    );
    expect(screen.getByLabelText('Max positions opened by rules')).toBeTruthy();
  });

  it('saves only what was changed, so a default left alone stays the default', async () => {
    const r = setup();
    fireEvent.change(screen.getByLabelText('Daily budget (USDT)'), { target: { value: '800' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save risk settings' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Risk settings saved.'));
    expect(JSON.parse(r.server.requests.at(-1)?.body ?? '{}')).toEqual({ daily_budget_usd: 800 });
  });
});
