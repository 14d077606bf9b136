CREATE TABLE "feed_filters" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"include" jsonb NOT NULL,
	"exclude" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rules" ADD COLUMN "include" jsonb;--> statement-breakpoint
ALTER TABLE "rules" ADD COLUMN "exclude" jsonb;--> statement-breakpoint
ALTER TABLE "feed_filters" ADD CONSTRAINT "feed_filters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;