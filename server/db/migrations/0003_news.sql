CREATE SEQUENCE "signals_rev_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "signals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rev" bigint DEFAULT nextval('signals_rev_seq') NOT NULL,
	"source" text NOT NULL,
	"external_id" text,
	"fingerprint" text NOT NULL,
	"content" text NOT NULL,
	"url" text,
	"icon" text,
	"source_name" text NOT NULL,
	"username" text,
	"media_urls" jsonb NOT NULL,
	"quote" jsonb,
	"published_at" timestamp with time zone,
	"received_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"asset" text,
	"assets" jsonb NOT NULL,
	"event_type" text,
	"impact_score" real,
	"sentiment" text,
	"reasoning" text,
	"engine" text,
	"disagreement" boolean,
	"initial_prices" jsonb NOT NULL,
	"also_reported_by" jsonb NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "signals_external_idx" ON "signals" USING btree ("source","external_id") WHERE "signals"."external_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "signals_rev_idx" ON "signals" USING btree ("rev");--> statement-breakpoint
CREATE INDEX "signals_fingerprint_idx" ON "signals" USING btree ("fingerprint","received_at");--> statement-breakpoint
CREATE INDEX "signals_received_idx" ON "signals" USING btree ("received_at");