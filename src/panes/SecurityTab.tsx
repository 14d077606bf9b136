import { useSignals } from '@preact/signals-react/runtime';
import { useState, type FormEvent } from 'react';
import { UNLINK_WALLETS_OFFER } from '../contracts/auth';
import { useServices } from '../app/AppContext';
import { FormNotice } from './FormNotice';
import { RecoveryCodes } from './RecoveryCodes';

const submit = (action: () => void) => (event: FormEvent) => {
  event.preventDefault();
  action();
};

function Field(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  type?: string;
  autoComplete?: string;
  disabled: boolean;
}) {
  return (
    <label className="field wide">
      <span>{props.label}</span>
      <input
        type={props.type ?? 'password'}
        value={props.value}
        autoComplete={props.autoComplete ?? 'off'}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      />
    </label>
  );
}

/** Security: change password, and 2FA through its states (disabled, setup, enabled). */
export function SecurityTab() {
  useSignals();
  const { stores, auth } = useServices();
  const [pw, setPw] = useState({ current: '', next: '', confirm: '', unlinkWallets: false });
  const [code, setCode] = useState('');
  const [disablePassword, setDisablePassword] = useState('');
  const notices = stores.auth.notices.value;
  const busy = stores.auth.busy.value;
  const twoFactor = stores.auth.twoFactor.value;
  const tfaBusy = busy.has('twoFactor');

  return (
    <>
      <section className="account-section" aria-label="Change Password">
        <h3>Change Password</h3>
        <form className="auth-form" onSubmit={submit(() => void auth.account.changePassword(pw))}>
          <Field
            label="Current password"
            autoComplete="current-password"
            value={pw.current}
            disabled={busy.has('password')}
            onChange={(current) => setPw((p) => ({ ...p, current }))}
          />
          <Field
            label="New password"
            autoComplete="new-password"
            value={pw.next}
            disabled={busy.has('password')}
            onChange={(next) => setPw((p) => ({ ...p, next }))}
          />
          <Field
            label="Confirm new password"
            autoComplete="new-password"
            value={pw.confirm}
            disabled={busy.has('password')}
            onChange={(confirm) => setPw((p) => ({ ...p, confirm }))}
          />
          <label className="check">
            <input
              type="checkbox"
              data-testid="password-unlink-wallets"
              checked={pw.unlinkWallets}
              disabled={busy.has('password')}
              onChange={(event) => {
                const unlinkWallets = event.currentTarget.checked;
                setPw((p) => ({ ...p, unlinkWallets }));
              }}
            />
            {UNLINK_WALLETS_OFFER}
          </label>
          <button type="submit" className="button primary" disabled={busy.has('password')}>
            Change Password
          </button>
        </form>
        <FormNotice notice={notices.password} testId="password-notice" />
      </section>

      <section className="account-section" aria-label="Two-Factor Authentication">
        <h3>Two-Factor Authentication</h3>
        {twoFactor.step === 'disabled' && (
          <>
            <p className="message">Two-factor authentication is off.</p>
            <button
              type="button"
              className="button primary"
              disabled={tfaBusy}
              onClick={() => void auth.account.startTwoFactorSetup()}
            >
              Enable 2FA
            </button>
          </>
        )}
        {twoFactor.step === 'setup' && (
          <form className="auth-form" onSubmit={submit(() => void auth.account.verifyTwoFactor(code))}>
            <p className="message">
              Scan the QR code with an authenticator app, or enter the secret by hand.
            </p>
            {twoFactor.qr !== null && (
              <img className="qr" src={twoFactor.qr} alt="2FA QR code" width={200} height={200} />
            )}
            <code className="secret" data-testid="tfa-secret">
              {twoFactor.secret}
            </code>
            <Field
              label="Verification code"
              type="text"
              autoComplete="one-time-code"
              value={code}
              disabled={tfaBusy}
              onChange={setCode}
            />
            <button type="submit" className="button primary" disabled={tfaBusy}>
              Verify
            </button>
          </form>
        )}
        {twoFactor.step === 'enabled' && (
          <>
            <p className="message success">Two-factor authentication is on.</p>
            {twoFactor.recoveryCodes !== null && (
              <RecoveryCodes
                codes={twoFactor.recoveryCodes}
                onDone={() => auth.account.hideRecoveryCodes()}
              />
            )}
            <form
              className="auth-form"
              onSubmit={submit(() => void auth.account.disableTwoFactor(disablePassword))}
            >
              <Field
                label="Password"
                autoComplete="current-password"
                value={disablePassword}
                disabled={tfaBusy}
                onChange={setDisablePassword}
              />
              <button type="submit" className="button sell" disabled={tfaBusy}>
                Disable 2FA
              </button>
            </form>
          </>
        )}
        <FormNotice notice={notices.twoFactor} testId="tfa-notice" />
      </section>
    </>
  );
}
