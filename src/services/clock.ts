/** The shared clock (see src/contracts/clock.ts). */
export { every, systemClock, type Clock, type Disposer } from '../contracts/clock';
