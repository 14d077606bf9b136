CREATE TABLE "impact_calibrations" (
	"price_source" text NOT NULL,
	"event_type" text NOT NULL,
	"horizon_s" integer NOT NULL,
	"points" jsonb NOT NULL,
	"sample_count" integer NOT NULL,
	"ratio" double precision NOT NULL,
	"fitted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "impact_calibrations_price_source_event_type_pk" PRIMARY KEY("price_source","event_type")
);
--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "impact_raw" real;--> statement-breakpoint
ALTER TABLE "signal_scores" ADD COLUMN "impact_raw" real;--> statement-breakpoint
ALTER TABLE "signal_scores" ADD COLUMN "event_type" text;--> statement-breakpoint
ALTER TABLE "signal_scores" ADD COLUMN "primary_asset" text;