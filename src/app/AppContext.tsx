import { createContext, useContext } from 'react';
import type { AppServices } from './appServices';

const ServicesContext = createContext<AppServices | null>(null);

export const ServicesProvider = ServicesContext.Provider;

/** The app's stores, commands and models; panes read and dispatch through these. */
export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (services === null) throw new Error('useServices() needs a <ServicesProvider> above it.');
  return services;
}
