import { z } from 'zod';
import { calibrationLines, loadCalibration } from '../../services/scorecard/calibration';
import { failure } from '../../services/terminal/output';
import { defineCommand } from '../types';

export const analysisCalibration = defineCommand({
  name: 'analysis calibration',
  area: 'feed',
  summary:
    'How impact scores compare with what prices did after them, per event type: recorded signals, whether the type is calibrated (or how many more it needs), and at scores 20, 50 and 80 the move promised and the move made.',
  usage: 'analysis calibration',
  examples: ['analysis calibration'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const result = await loadCalibration(ctx.api.main);
    if (!result.ok) return [failure(result.message)];
    return { lines: calibrationLines(result.value), data: result.value };
  },
});

export default [analysisCalibration];
