import { z } from 'zod';
import { EventType } from './analysis';

/**
 * The impact calibration, `GET /api/analysis/calibration` (docs/analysis.md#calibration): per event
 * type, how far prices moved after its signals at each raw score against what those scores promised,
 * and whether its scores follow the market yet.
 */

export const CALIBRATION_TEXTS = {
  simulated: 'Prices are simulated: their moves say nothing about the news, so impact is not calibrated.',
} as const;

/** Raw scores at which the terminal shows a type's curve. */
export const CALIBRATION_PROBES = [20, 50, 80] as const;

export const CalibrationPoint = z.object({
  /** The analyzer's raw score. */
  score: z.number(),
  /** The move that score promised, at the calibration's horizon (percent). */
  predicted_move: z.number(),
  /** The move the market made after signals of that score (percent, the fitted curve). */
  realised_move: z.number(),
});
export type CalibrationPoint = z.infer<typeof CalibrationPoint>;

export const CalibrationType = z.object({
  event_type: EventType,
  samples: z.number().int(),
  /** True once `samples` reaches `min_samples`: its scores are calibrated. */
  active: z.boolean(),
  /** The curve at the probe scores first (`CALIBRATION_PROBES`), then the fitted points. */
  probes: z.array(CalibrationPoint),
  points: z.array(CalibrationPoint),
});
export type CalibrationType = z.infer<typeof CalibrationType>;

export const CalibrationView = z.object({
  state: z.enum(['on', 'off']),
  reason: z.string().optional(),
  min_samples: z.number().int(),
  /** When the curves were fitted (ISO time), null before the first fit. */
  fitted_at: z.string().nullable(),
  /** Seconds after arrival at which moves are measured. */
  horizon_s: z.number().int().nullable(),
  /** Realised over expected moves over every sample: the horizon's share of a day's move. */
  ratio: z.number().nullable(),
  types: z.array(CalibrationType),
});
export type CalibrationView = z.infer<typeof CalibrationView>;
