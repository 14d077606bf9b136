import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import type { AuthModalMode } from '../services/stores/ui';
import { FormNotice } from './FormNotice';

const TITLES: Record<AuthModalMode, string> = {
  login: 'Login',
  signup: 'Sign Up',
  'forgot-password': 'Reset Password',
  'tfa-verify': 'Enter Verification Code',
};

/** A form submit that never reloads the page. */
const onSubmit = (action: () => void) => (event: FormEvent) => {
  event.preventDefault();
  action();
};

/** Spec §2/§4 auth modal: LOGIN, SIGNUP, FORGOT_PASSWORD and TFA_VERIFY. */
export function AuthModal() {
  useSignals();
  const { stores, auth } = useServices();
  const mode = stores.ui.authModal.value;
  const open = mode !== null;
  const [fields, setFields] = useState({ username: '', email: '', password: '', code: '', remember: false });

  useEffect(() => {
    if (open) void auth.modal.opened();
  }, [open, auth]);

  if (mode === null) return null;
  const busy = stores.auth.busy.value.has('auth');
  const notice = stores.auth.notices.value.auth;
  const set = (name: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => {
    const { type, checked, value } = event.currentTarget;
    setFields((f) => ({ ...f, [name]: type === 'checkbox' ? checked : value }));
  };
  const input = (name: 'username' | 'email' | 'password' | 'code', label: string, type = 'text') => (
    <label className="field wide">
      <span>{label}</span>
      <input
        type={type}
        name={name}
        value={fields[name]}
        onChange={set(name)}
        disabled={busy}
        required
        autoComplete={
          name === 'password'
            ? mode === 'signup'
              ? 'new-password'
              : 'current-password'
            : name === 'code'
              ? 'one-time-code'
              : name
        }
        {...(name === 'code' ? { inputMode: 'numeric' as const } : {})}
      />
    </label>
  );

  return (
    <div className="modal-backdrop" onClick={() => auth.modal.close()}>
      <div
        className="modal auth-modal"
        role="dialog"
        aria-modal="true"
        aria-label={TITLES[mode]}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.key === 'Escape' && auth.modal.close()}
      >
        {(mode === 'login' || mode === 'signup') && (
          <div className="tabs" role="tablist">
            {(['login', 'signup'] as const).map((tab) => (
              <button
                key={tab}
                type="button"
                role="tab"
                aria-selected={mode === tab}
                className={`tab${mode === tab ? ' active' : ''}`}
                onClick={() => auth.modal.switchTo(tab)}
              >
                {TITLES[tab]}
              </button>
            ))}
          </div>
        )}
        <h2>{TITLES[mode]}</h2>
        {mode === 'login' && (
          <form
            className="auth-form"
            onSubmit={onSubmit(
              () =>
                void auth.modal.login({
                  username: fields.username,
                  password: fields.password,
                  rememberMe: fields.remember,
                }),
            )}
          >
            {input('username', 'Username or email')}
            {input('password', 'Password', 'password')}
            <label className="checkbox">
              <input type="checkbox" checked={fields.remember} onChange={set('remember')} disabled={busy} />
              <span>Remember me</span>
            </label>
            <button type="submit" className="button primary" disabled={busy}>
              Login
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => auth.modal.switchTo('forgot-password')}
            >
              Forgot password?
            </button>
          </form>
        )}
        {mode === 'signup' && (
          <form
            className="auth-form"
            onSubmit={onSubmit(
              () =>
                void auth.modal.signup({
                  email: fields.email,
                  username: fields.username,
                  password: fields.password,
                }),
            )}
          >
            {input('email', 'Email', 'email')}
            {input('username', 'Username')}
            {input('password', 'Password', 'password')}
            <button type="submit" className="button primary" disabled={busy}>
              Sign Up
            </button>
          </form>
        )}
        {mode === 'forgot-password' && (
          <form className="auth-form" onSubmit={onSubmit(() => void auth.modal.forgot(fields.email))}>
            {input('email', 'Email', 'email')}
            <button type="submit" className="button primary" disabled={busy}>
              Send Reset Link
            </button>
            <button type="button" className="link-button" onClick={() => auth.modal.switchTo('login')}>
              Back to Login
            </button>
          </form>
        )}
        {mode === 'tfa-verify' && (
          <form className="auth-form" onSubmit={onSubmit(() => void auth.modal.verifyCode(fields.code))}>
            {input('code', 'Verification code')}
            <button type="submit" className="button primary" disabled={busy}>
              Verify
            </button>
            <button type="button" className="link-button" onClick={() => auth.modal.switchTo('login')}>
              Back to Login
            </button>
          </form>
        )}
        <FormNotice notice={notice} testId="auth-notice" />
        <button type="button" className="button" onClick={() => auth.modal.close()}>
          Close
        </button>
      </div>
    </div>
  );
}
