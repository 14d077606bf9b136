import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CalibrationView } from '../../../src/contracts/calibration';
import type { CalibrationService } from './calibration.service';

/** `GET /analysis/calibration`: signed-in users. */
export function registerCalibrationRoutes(instance: FastifyInstance, service: CalibrationService): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const schema = {
    summary: 'How impact scores of each event type compare with the moves that followed them',
    response: { 200: CalibrationView },
  };
  app.get('/analysis/calibration', { preValidation: app.requireUser, schema }, async () => service.view());
}
