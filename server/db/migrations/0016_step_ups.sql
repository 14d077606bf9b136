CREATE TABLE "step_ups" (
	"family_id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"confirmed_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "step_ups" ADD CONSTRAINT "step_ups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "step_ups_user_idx" ON "step_ups" USING btree ("user_id");