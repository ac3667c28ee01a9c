"""The composition root: one place where a server's parts are built and wired together.

``App.build(settings)`` makes the judges, the custom-code sandbox, the metric catalog (the
metrics of ``evald.metrics`` and of the ``metric_modules`` setting), the registered-metric
store, the evaluator and the dataset jobs; the gRPC server (:func:`evald.server.start`), the
in-process HTTP gateway (through the same gRPC handlers), ``evald evaluate --local`` and the
tests all use it. Nothing here is found through a global: every part gets what it needs passed in.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from evald import metric_registry
from evald.call import Services
from evald.config import Settings
from evald.database import Backend
from evald.errors import EvalError
from evald.fmeval.jobs import ModelEvaluationJobs, ModelEvaluationService
from evald.human.routes import HumanRoutes
from evald.human.service import HumanService
from evald.human.store import TABLES as HUMAN_TABLES
from evald.human.store import HumanStore
from evald.jobs.operations import OperationsService
from evald.jobs.runner import JobRunner
from evald.jobs.store import TABLES as JOB_TABLES
from evald.judges.runtime import Judges
from evald.metrics.catalog import Catalog
from evald.models.runtime import ModelRuntime
from evald.nemo import datasets, entities
from evald.nemo.routes import NemoRoutes
from evald.nemo.service import Context, NemoJobs, NemoService
from evald.ops.limits import RequestLimits
from evald.runs import imports
from evald.runs.imports import ImportStore
from evald.runs.routes import RunsRoutes
from evald.runs.service import RunsService
from evald.service import Evaluator, GrpcEvaluationService
from evald.targets import Targets
from evald.targets.cache import TABLES as TARGET_TABLES

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from evald.gateway.app import NativeApi

HF_TOKEN = "EVALD_HF_TOKEN"
"""Where the data store's token is read from (a secret: never a flag or a config entry)."""


@dataclass
class App:
    """One server's parts."""

    settings: Settings
    services: Services
    evaluator: Evaluator
    jobs: OperationsService
    """Dataset jobs: ``EvaluateDataset`` and the Operations service (runner started by
    :meth:`start`)."""
    nemo: NemoRoutes
    """NeMo Evaluator's REST API (served by the HTTP gateway); its jobs run on the same
    runner."""
    targets: Targets
    """The models NeMo jobs evaluate (and their llm-judge endpoints)."""
    models: ModelEvaluationService
    """FMEval's model evaluations (``EvaluateModel``); they run on the same runner."""
    backend: Backend | None = field(default=None)
    """Where the stores live: SQLite files in the data dir, or the shared PostgreSQL database."""
    runs: RunsRoutes | None = None
    """The web UI's runs API (jobs and imported ``evald evaluate`` outputs), served by the HTTP
    gateway."""
    human: HumanRoutes | None = None
    """Human evaluation's JSON API (served by the HTTP gateway)."""
    _prepared: bool = field(default=False, init=False, repr=False)

    @classmethod
    def build(cls, settings: Settings, env: Mapping[str, str] | None = None) -> App:
        """The parts ``settings`` describe. ``env`` (default: the process environment) is where
        the judge configuration reads ``EVALD_JUDGE_*`` overrides and the judges' key
        variables, whenever it is (re)loaded."""
        env = os.environ if env is None else env
        data = settings.data_root()
        backend = Backend(data, settings.database_url, settings.database_pool_size)
        gate, engine = None, None
        if settings.engine == "ray":  # Ray is imported only for this engine
            from evald.jobs import ray_engine

            gate, engine = ray_engine.RayGate(), ray_engine.RayEngine(settings)
        judges = Judges(settings.judge_config, settings.judges, env, backend, gate=gate)
        services = Services(
            judges,
            metric_registry.sandbox(settings),
            Catalog.discover(settings.metric_module_names()),
            metric_registry.store(settings, backend),
            ModelRuntime(
                settings.models_dir,
                settings.model_device,
                max_loaded_models=settings.max_loaded_models,
                batch_size=settings.model_batch_size,
                batch_wait_ms=settings.model_batch_wait_ms,
            ),
        )
        evaluator = Evaluator(services)
        for root in (settings.dataset_dir(), settings.output_dir()):
            root.mkdir(parents=True, exist_ok=True)
        targets = Targets(
            cache_path=backend.open(TARGET_TABLES),
            max_concurrency=settings.target_concurrency,
            timeout_seconds=settings.target_timeout_seconds,
            gate=gate,
        )
        access = datasets.DatasetAccess(
            dataset_root=settings.dataset_dir(),
            hf_endpoint=settings.hf_endpoint,
            hf_token=env.get(HF_TOKEN) or None,
            hf_datasets_dir=settings.hf_datasets_dir,
            cache_dir=data / "hf",
        )
        context = Context(
            services.metrics,
            services,
            targets,
            access,
            entities.Entities(backend.open(entities.TABLES)),
            settings.output_dir(),
        )
        model_jobs = ModelEvaluationJobs(
            targets, settings.dataset_dir(), settings.output_dir(), services.models
        )
        runner = JobRunner(
            settings.data_root(),
            evaluator.evaluate_instances,
            dataset_root=settings.dataset_dir(),
            output_root=settings.output_dir(),
            concurrency=settings.job_concurrency,
            max_jobs=settings.max_running_jobs,
            kinds=[NemoJobs(context), model_jobs],
            database=backend.open(JOB_TABLES),
            lease_seconds=settings.job_lease_seconds,
            engine=engine,
        )
        nemo = NemoRoutes(NemoService(context, runner))
        models = ModelEvaluationService(runner, model_jobs)
        runs = RunsRoutes(RunsService(runner.store, ImportStore(backend.open(imports.TABLES))))
        human = HumanRoutes(
            HumanService(
                HumanStore(backend.open(HUMAN_TABLES)),
                runner.store,
                settings.dataset_dir(),
                imported=runs.service.imported,  # tasks from imported runs too
            )
        )
        return cls(
            settings,
            services,
            evaluator,
            OperationsService(runner),
            nemo,
            targets,
            models,
            backend,
            runs,
            human,
        )

    def handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """The generic handlers of every service: EvaluationService (each API version),
        MetricRegistry, Operations and ModelEvaluationService."""
        evaluation = GrpcEvaluationService(
            self.evaluator,
            self.jobs.evaluate_dataset_handler,
            RequestLimits.from_settings(self.settings),
        )
        store = self.services.store
        registry = []
        if store is not None:
            registry.append(metric_registry.Registry(store, self.services.metrics).handler())
        models = self.models.handler()
        return [*evaluation.method_handlers(), *registry, *self.jobs.handlers(), models]

    async def prepare(self) -> None:
        """Reach and migrate a shared database before the server listens (OSError, one line,
        when it cannot be); SQLite files stay created and migrated on first use, as before."""
        if self.backend is None or not self.backend.shared or self._prepared:
            return
        try:
            await asyncio.to_thread(self.backend.prepare)
        except Exception as exc:  # unreachable, or migrated by a newer evald
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise OSError(f"stores in {self.backend.describe()}: {reason}") from None
        self._prepared = True
        log.info("stores in %s", self.backend.describe())

    def native_apis(self) -> list[NativeApi]:
        """The JSON APIs the HTTP gateway serves beside the transcoded routes."""
        return [
            self.nemo,
            *([self.runs] if self.runs is not None else []),
            *([self.human] if self.human is not None else []),
        ]

    async def start(self) -> None:
        """Resume the dataset jobs a stopped or killed process (this one before a restart, or
        a dead replica sharing the database) left unfinished (with ``--engine ray``, once
        connected to the cluster)."""
        await self.prepare()  # done already when evald.server.serve built this app
        if self.jobs.runner.engine is not None:
            try:
                await self.jobs.runner.engine.start()
            except EvalError as exc:  # the cluster is unreachable: the server cannot start
                raise OSError(exc.message) from None
        await self.jobs.runner.start()

    async def aclose(self) -> None:
        """Stop the dataset jobs (unfinished ones stay stored and resume on the next start) and
        close the judges' connections and cache and the model workers."""
        await self.jobs.runner.stop()
        await self.services.judges.aclose()
        self.services.judges.close()
        await self.targets.aclose()
        if isinstance(self.services.models, ModelRuntime):
            await self.services.models.aclose()
        if self.backend is not None:
            await asyncio.to_thread(self.backend.close)
