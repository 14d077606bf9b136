import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { QuickBracketEditor } from './QuickBracketEditor';

afterEach(cleanup);

describe('quick-trade bracket editor', () => {
  it('is off at first, saves the percentages, turns on, and shows what it refuses', () => {
    const { services } = renderWithServices(<QuickBracketEditor />);
    const toggle = screen.getByRole('checkbox') as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(screen.getByTestId('bracket-state').textContent).toBe('off (SL 2% · TP 5% when on)');
    fireEvent.change(screen.getByLabelText('Stop loss %'), { target: { value: '1.5' } });
    fireEvent.change(screen.getByLabelText('Take profit %'), { target: { value: '' } });
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    act(() => fireEvent.click(toggle));
    expect(toggle.checked).toBe(true);
    expect(screen.getByTestId('bracket-state').textContent).toBe('SL 1.5%');
    expect(services.stores.quickBracket.protection.value).toEqual({ stop_loss_pct: 1.5 });
    fireEvent.change(screen.getByLabelText('Stop loss %'), { target: { value: '99' } });
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    expect(screen.getByRole('alert').textContent).toBe('Stop loss must be between 0.05% and 95%.');
    expect(services.stores.quickBracket.protection.value).toEqual({ stop_loss_pct: 1.5 });
  });
});
